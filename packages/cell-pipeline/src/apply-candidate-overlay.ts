import { lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@wfbench/durable-fs";
import { runSandboxed } from "@wfbench/sandbox-bwrap";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import { CellPipelineError } from "./errors.js";
import type { CandidateOverlayFile } from "./read-candidate-overlay.js";

/** The commit message of the overlay commit (reference §9.4). */
export const OVERLAY_COMMIT_MESSAGE = "benchmark candidate skill overlay";
const IDENTICAL_EXIT = 3;
// A fixed identity and date keep the overlay commit (and so variant_head_sha) reproducible.
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: "wfbench",
  GIT_AUTHOR_EMAIL: "wfbench@localhost",
  GIT_COMMITTER_NAME: "wfbench",
  GIT_COMMITTER_EMAIL: "wfbench@localhost",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};
const COMMIT_SCRIPT = [
  "mkdir -p /tmp/wfbench-empty-hooks || exit 1",
  'git -c core.hooksPath=/tmp/wfbench-empty-hooks add -f -- "$@" || exit 1',
  'git diff --cached --quiet --no-ext-diff --no-textconv -- "$@"',
  "rc=$?",
  `[ "$rc" -eq 0 ] && exit ${IDENTICAL_EXIT}`,
  '[ "$rc" -eq 1 ] || exit 1',
  `exec git -c core.hooksPath=/tmp/wfbench-empty-hooks commit --quiet --no-verify -m "${OVERLAY_COMMIT_MESSAGE}" -- "$@"`,
].join("\n");

function failed(message: string): CellPipelineError {
  return new CellPipelineError("CELL_PIPELINE_OVERLAY_FAILED", message);
}

async function ensureRealParents(workspace: string, relative: string): Promise<void> {
  const parts = relative.split("/").slice(0, -1);
  let walked = workspace;
  for (const part of parts) {
    walked = join(walked, part);
    const stat = await lstat(walked).catch(() => null);
    if (stat === null) await mkdir(walked, { mode: 0o700 });
    else if (!stat.isDirectory()) throw failed(`overlay parent ${relative} (${part}) is not a real directory in the cell`);
  }
}

async function writeOne(workspace: string, file: CandidateOverlayFile): Promise<void> {
  await ensureRealParents(workspace, file.path);
  const destination = join(workspace, file.path);
  const existing = await lstat(destination).catch(() => null);
  if (existing !== null && !existing.isFile()) throw failed(`overlay destination ${file.path} is a link or special file in the cell`);
  // Temp file beside it, fsync, rename, directory fsync: the commit that follows sees whole files only.
  await writeFileAtomic(destination, file.bytes, { mode: 0o644 });
}

/**
 * Applies a validated overlay to a private cell copy (reference §9.4 in-clone apply): each file is written beside its
 * destination and renamed into place (parents must be real directories, the destination a regular file or absent),
 * then, inside the sandbox (no network), `git add -f`, a refusal when the staged bytes equal the incumbent's, and one
 * commit so the overlay becomes the diff base. Trusts the files (readCandidateOverlay checked them); throws
 * CellPipelineError(CELL_PIPELINE_OVERLAY_FAILED) when a destination is unsafe, the overlay changes nothing, or git fails.
 */
export async function applyCandidateOverlay(workspace: string, files: readonly CandidateOverlayFile[], timeoutMs: number, signal?: AbortSignal, sandbox: typeof runSandboxed = runSandboxed): Promise<void> {
  for (const file of files) await writeOne(workspace, file);
  const result = await sandbox(
    { workspace: { hostPath: workspace, mode: "rw" }, env: { ...buildSandboxEnv(), ...COMMIT_ENV }, network: { mode: "none" } },
    ["/bin/sh", "-c", COMMIT_SCRIPT, "sh", ...files.map((f) => f.path)],
    { timeoutMs, ...(signal === undefined ? {} : { signal }) },
  );
  if (result.state === "exited" && result.exitCode === IDENTICAL_EXIT) throw failed("the candidate overlay is byte-identical to the incumbent skills");
  if (!result.ok) throw failed(`committing the overlay failed (${result.state}, exit ${String(result.exitCode)}): ${result.stderrTail.slice(-1000)}`);
}
