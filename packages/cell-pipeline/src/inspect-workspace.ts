import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { runSandboxed } from "@wfbench/sandbox-bwrap";
import { PLAN_DIR } from "./arms.js";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import { CellPipelineError } from "./errors.js";

/** Patch bound (reference Appendix A, MAX_PATCH_BYTES). */
export const MAX_PATCH_BYTES = 300_000;
const GIT = ["/usr/bin/git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat", "-c", "diff.external="];
const CHURN_EXCLUDES = [":(exclude)docs/plans", ":(exclude).claude/skills"];
const GIT_TIMEOUT_MS = 120_000;

/** Churn of the candidate against the arm's starting commit (reference §5.9). */
export interface Churn {
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
}

async function runGit(workspace: string, argv: readonly string[], mode: "ro" | "rw", maxStdoutBytes = 16 * 1024 * 1024, signal?: AbortSignal): Promise<{ stdout: Buffer; overflow: boolean }> {
  const result = await runSandboxed(
    { workspace: { hostPath: workspace, mode }, env: { ...buildSandboxEnv(), GIT_CONFIG_GLOBAL: "/dev/null" }, network: { mode: "none" } },
    [...GIT, ...argv],
    { timeoutMs: GIT_TIMEOUT_MS, maxStdoutBytes, ...(signal === undefined ? {} : { signal }) },
  );
  if (!result.ok) {
    throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `git ${argv[0] ?? ""} in the sandbox ended ${result.state} (exit ${String(result.exitCode)}): ${result.stderrTail.slice(-300)}`);
  }
  return { stdout: result.stdout, overflow: result.stdoutOverflow };
}

/**
 * Marks untracked files intent-to-add, then returns the sha256 of the binary diff against `baseSha` without plans and
 * skills (reference §4.5, implementation diff digest). Runs git inside the sandbox (no network): the agent may have
 * rewritten `.git/config`, so host git never touches the cell.
 */
export async function digestWorkspaceDiff(workspace: string, baseSha: string, signal?: AbortSignal): Promise<string> {
  await runGit(workspace, ["add", "--intent-to-add", "-A", "--", "."], "rw", 1 << 20, signal);
  const diff = await runGit(workspace, ["diff", "--no-ext-diff", "--no-textconv", "--binary", baseSha, "--", ".", ...CHURN_EXCLUDES], "ro", 1024 * 1024 * 1024, signal);
  return sha256Hex(diff.stdout);
}

/**
 * The workspace's HEAD commit, asked of git inside the sandbox (no network). Why not read `.git/HEAD` on the host: a
 * task's `setup` is untrusted and could leave HEAD a symbolic ref or a symlink to a host file.
 * @throws {CellPipelineError} CELL_PIPELINE_WORKSPACE_FAILED when git fails or answers something other than a commit id.
 */
export async function readWorkspaceHead(workspace: string, signal?: AbortSignal): Promise<string> {
  const out = await runGit(workspace, ["rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], "ro", 256, signal);
  const sha = out.stdout.toString("utf8").trim();
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u.test(sha)) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `git rev-parse HEAD answered ${JSON.stringify(sha.slice(0, 80))}, not a commit id`);
  return sha;
}

/** Parses `git diff --shortstat` with reference §5.9's rule: 0 for an absent term. */
export function parseShortstat(text: string): Churn {
  const churn = { files: 0, insertions: 0, deletions: 0 };
  for (const match of text.matchAll(/(\d+) (file|insertion|deletion)/gu)) {
    const count = Number(match[1]);
    if (match[2] === "file") churn.files = count;
    else if (match[2] === "insertion") churn.insertions = count;
    else churn.deletions = count;
  }
  return churn;
}

/** Churn (shortstat without plans and skills) plus the first 300,000 bytes of the full binary patch. */
export async function measureWorkspace(workspace: string, baseSha: string, signal?: AbortSignal): Promise<{ churn: Churn; patch: Buffer; patchTruncated: boolean }> {
  await runGit(workspace, ["add", "--intent-to-add", "-A", "--", "."], "rw", 1 << 20, signal);
  const stat = await runGit(workspace, ["diff", "--no-ext-diff", "--no-textconv", "--shortstat", baseSha, "--", ".", ...CHURN_EXCLUDES], "ro", 1 << 16, signal);
  const patch = await runGit(workspace, ["diff", "--no-ext-diff", "--no-textconv", "--binary", baseSha, "--", "."], "ro", MAX_PATCH_BYTES, signal);
  return { churn: parseShortstat(stat.stdout.toString("utf8")), patch: patch.stdout, patchTruncated: patch.overflow };
}

/** Plan documents: direct `*.md` / `*.html` entries of docs/plans with their sha256; a symlink or special entry is flagged. */
export async function listPlanDocuments(workspace: string): Promise<{ docs: ReadonlyMap<string, string>; unsafe: readonly string[] }> {
  const dir = join(workspace, PLAN_DIR);
  const docs = new Map<string, string>();
  const unsafe: string[] = [];
  const stat = await lstat(dir).catch(() => null);
  if (stat === null) return { docs, unsafe };
  if (!stat.isDirectory()) return { docs, unsafe: [PLAN_DIR] };
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!/\.(?:md|html)$/u.test(entry.name)) continue;
    const rel = `${PLAN_DIR}/${entry.name}`;
    if (!entry.isFile()) {
      unsafe.push(rel);
      continue;
    }
    docs.set(rel, sha256Hex(await readFile(join(dir, entry.name))));
  }
  return { docs, unsafe };
}

/** Plan documents created or changed between two listings. */
export function diffPlanDocuments(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...after].filter(([path, digest]) => before.get(path) !== digest).map(([path]) => path).sort();
}
