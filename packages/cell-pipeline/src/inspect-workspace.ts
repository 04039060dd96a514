import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { buildWorkspaceGitEnv, inspectRelativePath } from "@wfbench/clone-sanitizer";
import { compareCodePoints, sha256Hex, sha256Stream } from "@wfbench/digest";
import { SANDBOX_HOME, SANDBOX_TMP, SANDBOX_WORKSPACE, runSandboxed } from "@wfbench/sandbox-bwrap";
import { PLAN_DIR } from "./arms.js";
import { CellPipelineError } from "./errors.js";
import { openWorkspaceFile } from "./open-workspace-file.js";

/** Patch bound (reference Appendix A, MAX_PATCH_BYTES). */
export const MAX_PATCH_BYTES = 300_000;
/**
 * Per-file diff bound: git never reads a file larger than this (a 2 GiB sparse file made `git diff` die of a failed
 * malloc); it is counted as a changed file and named by a marker line instead of its content.
 */
export const MAX_DIFF_FILE_BYTES = 8 * 1024 * 1024;
const CHURN_EXCLUDED_ROOTS = ["docs/plans", ".claude/skills"];
const CHURN_EXCLUDES = CHURN_EXCLUDED_ROOTS.map((root) => `:(exclude)${root}`);
const GIT_TIMEOUT_MS = 120_000;
const LISTING_BYTES = 64 * 1024 * 1024;
const GIT_PATH = "/usr/bin/git";
// A gitlink's directory is never entered: its status would run git on a repository the agent may have configured.
const DIFF = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"];

/** Stands for the base commit in a git script's argv: passed as `$1`, never spliced into the script. */
const BASE = Symbol("base");
type ScriptWord = string | typeof BASE;
const quoteWord = (word: ScriptWord): string => (word === BASE ? '"$1"' : `'${word.replaceAll("'", "'\\''")}'`);
/**
 * A `/bin/sh` script that runs the gits in order, stops at the first that fails, and prints one NUL between the
 * outputs of consecutive ones: the first NUL after text that holds none, or the first empty entry after NUL-terminated
 * `-z` entries (no path is empty). The last git is exec'ed.
 */
function gitScript(gits: readonly (readonly ScriptWord[])[]): string {
  return gits.map((argv, index) => `${index === gits.length - 1 ? "exec " : ""}${[GIT_PATH, ...argv.map(quoteWord)].join(" ")}`).join(" && printf '\\0' && ");
}
// Untracked non-ignored files intent-to-add (the pathspecs on stdin): silent on stdout, the view's first git call.
const ADD: readonly ScriptWord[] = ["add", "--intent-to-add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"];
const withAdd = (gits: readonly (readonly ScriptWord[])[]): string => `${GIT_PATH} ${ADD.map(quoteWord).join(" ")} && ${gitScript(gits)}`;

/** Churn of the candidate against the arm's starting commit (reference §5.9). */
export interface Churn {
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
}

/** A workspace entry git was not allowed to read: counted as one changed file and named by a marker line. */
export interface UndiffedEntry {
  readonly path: string;
  readonly reason: "over-size" | "nested-repository";
  readonly status: "added" | "modified";
  /** Bytes on disk (over-size entries); null for a nested repository. */
  readonly size: number | null;
}

/**
 * The git environment of every verify and oracle command (and of the harness's own git): the harness-built
 * `/workspace/.git` named outright, no system/global config or attributes, no filter or diff drivers.
 */
export function buildWorkspaceGitEnvForSandbox(): Record<string, string> {
  return buildWorkspaceGitEnv({ gitDir: `${SANDBOX_WORKSPACE}/.git`, workTree: SANDBOX_WORKSPACE });
}

/** Runs one sandboxed command: `runSandboxed` (bwrap) or the host-unsafe backend's `run`. */
export type WorkspaceSandbox = typeof runSandboxed;

interface GitView {
  readonly workspace: string;
  /** The cell's backend; bwrap when absent. */
  readonly sandbox?: WorkspaceSandbox | undefined;
  /** Private host directory seen as the sandbox's /tmp; holds the harness's own index. Null: a tmpfs, no index. */
  readonly scratch: string | null;
}

interface GitCall {
  readonly maxStdoutBytes?: number;
  /** GIT_TIMEOUT_MS per git the call runs (a script of three gits gets three times the one bound). */
  readonly gits?: number;
  readonly stdin?: Buffer;
  readonly signal?: AbortSignal | undefined;
}

/**
 * One git call of the harness after setup: the workspace read-only (nothing git runs may write the candidate's tree),
 * no network, the workspace git environment, and an index of the harness's own in the private scratch directory.
 */
async function runGit(view: GitView, argv: readonly string[], call: GitCall = {}): Promise<{ stdout: Buffer; overflow: boolean }> {
  return runInView(view, [GIT_PATH, ...argv], `git ${argv[0] ?? ""}`, call);
}

/**
 * Two or more git calls in one sandbox start-up (each start costs ~20 ms): `/bin/sh -c` runs `script`, with `args` as
 * its positional parameters (never spliced into the script), stopping at the first git that fails. What the sandbox,
 * environment and index are, and how a failure is judged, is exactly runGit's.
 */
async function runGitScript(view: GitView, label: string, script: string, args: readonly string[], call: GitCall = {}): Promise<{ stdout: Buffer; overflow: boolean }> {
  return runInView(view, ["/bin/sh", "-c", script, "wfbench-git", ...args], label, call);
}

async function runInView(view: GitView, command: readonly string[], label: string, call: GitCall): Promise<{ stdout: Buffer; overflow: boolean }> {
  // Objects git must write (the empty blob of an intent-to-add entry) go to the scratch store, never the workspace.
  const scratchStore = view.scratch === null ? {} : { GIT_OBJECT_DIRECTORY: `${SANDBOX_TMP}/objects`, GIT_ALTERNATE_OBJECT_DIRECTORIES: `${SANDBOX_WORKSPACE}/.git/objects` };
  const env = { ...buildWorkspaceGitEnvForSandbox(), ...scratchStore, GIT_INDEX_FILE: `${SANDBOX_TMP}/index`, HOME: SANDBOX_HOME, PATH: "/usr/bin:/bin" };
  const result = await (view.sandbox ?? runSandboxed)(
    { workspace: { hostPath: view.workspace, mode: "ro" }, tmpHostPath: view.scratch, env, network: { mode: "none" } },
    command,
    {
      timeoutMs: GIT_TIMEOUT_MS * (call.gits ?? 1),
      maxStdoutBytes: call.maxStdoutBytes ?? 16 * 1024 * 1024,
      ...(call.stdin === undefined ? {} : { stdin: call.stdin }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    },
  );
  if (!result.ok) {
    // git ran to its own exit and said no: the tree is what it is (a file it cannot read or diff). Any other ending (no
    // start, a timeout, a cancel) says nothing about the tree.
    const code = result.state === "exited" ? "CELL_PIPELINE_WORKSPACE_REFUSED" : "CELL_PIPELINE_WORKSPACE_FAILED";
    throw new CellPipelineError(code, `${label} in the sandbox ended ${result.state} (exit ${String(result.exitCode)}): ${result.stderrTail.slice(-300)}`);
  }
  return { stdout: result.stdout, overflow: result.stdoutOverflow };
}

/** Splits `git ls-files -z` output into its entries (every entry NUL-terminated, none empty). */
function splitEntries(bytes: Buffer): string[] {
  return bytes.toString("utf8").split("\0").filter((entry) => entry !== "");
}

// read-tree, the tracked listing (mode, blob, path), one empty entry (a NUL: no path is empty) as the boundary, then
// the untracked non-ignored listing. The untracked listing does not depend on what update-index later marks.
const LIST_SCRIPT = `${GIT_PATH} read-tree "$1" && ${gitScript([["ls-files", "-z", "-s"], ["ls-files", "-z", "-o", "--exclude-standard"]])}`;

/**
 * The base tree read into the harness's index and both listings git gives of the workspace against it, in one sandbox
 * start-up. Each listing keeps its own LISTING_BYTES bound: a tree with more paths is what the workspace holds.
 */
async function readListings(view: GitView, baseSha: string, signal: AbortSignal | undefined): Promise<{ tracked: string[]; untracked: string[] }> {
  const out = await runGitScript(view, "git read-tree / ls-files", LIST_SCRIPT, [baseSha], { maxStdoutBytes: 2 * LISTING_BYTES + 1, gits: 3, signal });
  const refuse = (argv: string): CellPipelineError => new CellPipelineError("CELL_PIPELINE_WORKSPACE_REFUSED", `git ${argv} listed more than ${LISTING_BYTES} bytes of paths`);
  // Together over both bounds: one of the two is over its own.
  if (out.overflow) throw refuse("ls-files -z -s / ls-files -z -o --exclude-standard");
  let boundary = 0;
  for (;;) {
    const end = out.stdout.indexOf(0, boundary);
    if (end === -1) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", "git ls-files answered without the boundary between its two listings");
    if (end === boundary) break;
    boundary = end + 1;
  }
  if (boundary > LISTING_BYTES) throw refuse("ls-files -z -s");
  const untracked = out.stdout.subarray(boundary + 1);
  if (untracked.length > LISTING_BYTES) throw refuse("ls-files -z -o --exclude-standard");
  return { tracked: splitEntries(out.stdout.subarray(0, boundary)), untracked: splitEntries(untracked) };
}

/** The git object id of a file's bytes (`blob <size>\0<bytes>`), hashed on the host from a no-follow handle. */
async function hashBlob(workspace: string, path: string, expected: { dev: number; ino: number; size: number }, algorithm: "sha1" | "sha256"): Promise<string | null> {
  const handle = await openWorkspaceFile(join(workspace, path), expected);
  if (handle === null) return null;
  try {
    const hash = createHash(algorithm).update(`blob ${expected.size}\0`);
    for await (const chunk of handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) hash.update(chunk);
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

interface DiffView extends GitView {
  readonly scratch: string;
  readonly undiffed: readonly UndiffedEntry[];
  /**
   * The pathspecs (NUL-separated) of the `git add --intent-to-add` that completes the index: the first git call on the
   * view runs it (withAdd), in the same sandbox start-up as the git that reads the view.
   */
  readonly addStdin: Buffer;
}


// Every directory the sandbox user may not both list and enter (GNU find's -readable / -executable ask access(2) as that
// user), pruned, as "<octal mode> <path from /workspace>" NUL-terminated; the harness's own .git is not walked.
const UNLISTABLE_FIND = ["/usr/bin/find", SANDBOX_WORKSPACE, "-path", `${SANDBOX_WORKSPACE}/.git`, "-prune", "-o", "-type", "d", "(", "!", "-readable", "-o", "!", "-executable", ")", "-prune", "-printf", "%m %P\\0"];

/**
 * Refuses a workspace holding a directory the sandboxed git may enter but not list (or neither): git skips it with a
 * warning and exits 0, so its files would be missing from the patch, churn and diff digest while the oracle, told a
 * name inside, still imports them. Asked in the same sandbox as the git (workspace read-only, the sandbox user's own
 * access, no depth limit: find walks by descriptor); ignored trees are walked too, on purpose (fail closed).
 * @throws {CellPipelineError} CELL_PIPELINE_WORKSPACE_REFUSED naming (up to 8 of) the directories and their modes.
 */
async function refuseUnlistableDirectories(view: GitView, signal: AbortSignal | undefined): Promise<void> {
  const out = await runInView(view, UNLISTABLE_FIND, "find (directories git cannot list)", { maxStdoutBytes: 64 * 1024, signal });
  const found = splitEntries(out.stdout);
  if (found.length === 0 && !out.overflow) return;
  const named = found.slice(0, 8).map((entry) => {
    const space = entry.indexOf(" ");
    return `${JSON.stringify(entry.slice(space + 1) || ".")} (mode ${entry.slice(0, space).padStart(4, "0")})`;
  });
  const more = found.length > 8 || out.overflow ? " and more" : "";
  throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_REFUSED", `the sandboxed git cannot list directory ${named.join(", ")}${more}: what it holds would be left out of the patch, churn and diff digest`);
}

/**
 * Builds the harness's own index of the workspace against `baseSha` (read from the harness-built `.git`): the base
 * tree, untracked non-ignored files intent-to-add (by the view's first git call, see `addStdin`), except files over
 * MAX_DIFF_FILE_BYTES (tracked ones marked
 * assume-unchanged, untracked ones left out) and nested repositories (left out), which are returned as undiffed.
 * A tracked file over the bound with the base's size is hashed on the host and is undiffed only if it changed.
 * A workspace with a directory git could not list is refused first (refuseUnlistableDirectories).
 */
async function openDiffView(workspace: string, baseSha: string, privateRoot: string, signal: AbortSignal | undefined, sandbox: WorkspaceSandbox | undefined): Promise<DiffView> {
  const scratch = await mkdtemp(join(privateRoot, "git-view-"));
  await mkdir(join(scratch, "objects"));
  const view = { workspace, scratch, sandbox };
  try {
    await refuseUnlistableDirectories(view, signal);
    const listings = await readListings(view, baseSha, signal);
    const undiffed: UndiffedEntry[] = [];
    const frozen: string[] = [];
    const sameSize: { path: string; blob: string; inspected: { dev: number; ino: number; size: number } }[] = [];
    const tracked = listings.tracked.map((entry) => {
      const tab = entry.indexOf("\t");
      const [mode = "", blob = ""] = entry.slice(0, tab).split(" ");
      return { mode, blob, path: entry.slice(tab + 1) };
    });
    const bigTracked: { path: string; mode: string; blob: string; inspected: { dev: number; ino: number; size: number } }[] = [];
    for (const entry of tracked) {
      if (entry.mode === "160000") continue;
      const seen = await inspectRelativePath(workspace, entry.path);
      if (seen.kind === "file" && seen.size > MAX_DIFF_FILE_BYTES) bigTracked.push({ ...entry, inspected: seen });
    }
    if (bigTracked.length > 0) {
      const regular = bigTracked.filter((entry) => entry.mode === "100644" || entry.mode === "100755");
      const sizes = new Map<string, number>();
      if (regular.length > 0) {
        const answer = await runGit(view, ["cat-file", "--batch-check=%(objectname) %(objectsize)"], { stdin: Buffer.from(`${regular.map((e) => e.blob).join("\n")}\n`), signal });
        for (const line of answer.stdout.toString("utf8").split("\n")) {
          const [id, size] = line.split(" ");
          if (id !== undefined && size !== undefined && /^\d+$/u.test(size)) sizes.set(id, Number(size));
        }
      }
      for (const entry of bigTracked) {
        frozen.push(entry.path);
        if (sizes.get(entry.blob) === entry.inspected.size) sameSize.push(entry);
        else undiffed.push({ path: entry.path, reason: "over-size", status: "modified", size: entry.inspected.size });
      }
      for (const entry of sameSize) {
        const id = await hashBlob(workspace, entry.path, entry.inspected, entry.blob.length === 64 ? "sha256" : "sha1");
        if (id !== entry.blob) undiffed.push({ path: entry.path, reason: "over-size", status: "modified", size: entry.inspected.size });
      }
      // Frozen at the base's entry: git compares nothing there, so it never reads the file.
      await runGit(view, ["update-index", "-z", "--assume-unchanged", "--stdin"], { stdin: Buffer.from(frozen.map((p) => `${p}\0`).join("")), signal });
    }
    const excluded: string[] = [];
    for (const entry of listings.untracked) {
      if (entry.endsWith("/")) {
        // A directory holding its own .git: `git add` would record a gitlink (or fail outright without a commit).
        const path = entry.slice(0, -1);
        excluded.push(path);
        undiffed.push({ path, reason: "nested-repository", status: "added", size: null });
        continue;
      }
      const seen = await inspectRelativePath(workspace, entry);
      if (seen.kind === "file" && seen.size > MAX_DIFF_FILE_BYTES) {
        excluded.push(entry);
        undiffed.push({ path: entry, reason: "over-size", status: "added", size: seen.size });
      }
    }
    const pathspecs = [".", ...excluded.map((path) => `:(exclude,literal)${path}`)];
    undiffed.sort((a, b) => compareCodePoints(a.path, b.path));
    return { ...view, undiffed, addStdin: Buffer.from(pathspecs.map((p) => `${p}\0`).join("")) };
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

async function closeDiffView(view: DiffView): Promise<void> {
  await rm(view.scratch, { recursive: true, force: true });
}

// The diff the digest covers is read whole (up to 1 GiB).
const DIGEST_DIFF_BYTES = 1024 * 1024 * 1024;
const DIGEST_DIFF: readonly ScriptWord[] = [...DIFF, "--binary", BASE, "--", ".", ...CHURN_EXCLUDES];
const SHORTSTAT: readonly ScriptWord[] = [...DIFF, "--shortstat", BASE, "--", ".", ...CHURN_EXCLUDES];
/** The digest of a diff read through the view: the undiffed entries' marker lines (outside plans and skills) first. */
function digestDiff(view: DiffView, diff: Buffer): string {
  const markers = view.undiffed.filter((entry) => inChurn(entry.path)).map(formatUndiffedMarker).join("");
  return sha256Hex(Buffer.concat([Buffer.from(markers, "utf8"), diff]));
}

const inChurn = (path: string): boolean => !CHURN_EXCLUDED_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));

/** The marker line an undiffed entry gets in the patch and the diff digest instead of its content. */
export function formatUndiffedMarker(entry: UndiffedEntry): string {
  const why = entry.reason === "nested-repository" ? "a nested git repository" : `${entry.size ?? 0} bytes, over the ${MAX_DIFF_FILE_BYTES}-byte per-file diff bound`;
  return `# wfbench: ${JSON.stringify(entry.path)} ${entry.status}, not diffed (${why})\n`;
}

/**
 * The sha256 of the binary diff against `baseSha` without plans and skills (reference §4.5, implementation diff
 * digest), preceded by the marker lines of the undiffed entries outside them. Reads only the harness-built `.git`
 * through sandboxed git with the workspace read-only, so nothing the agent configured runs or hides a change.
 */
export async function digestWorkspaceDiff(workspace: string, baseSha: string, privateRoot: string, signal?: AbortSignal, sandbox?: WorkspaceSandbox): Promise<string> {
  const view = await openDiffView(workspace, baseSha, privateRoot, signal, sandbox);
  try {
    const diff = await runGitScript(view, "git add / diff", withAdd([DIGEST_DIFF]), [baseSha], { maxStdoutBytes: DIGEST_DIFF_BYTES, stdin: view.addStdin, gits: 2, signal });
    return digestDiff(view, diff.stdout);
  } finally {
    await closeDiffView(view);
  }
}

/**
 * The workspace's HEAD commit, asked of git inside the sandbox (no network, workspace read-only). Why not read
 * `.git/HEAD` on the host: a task's `setup` is untrusted and could leave HEAD a symbolic ref or a symlink to a host file.
 * @throws {CellPipelineError} CELL_PIPELINE_WORKSPACE_FAILED when git fails or answers something other than a commit id.
 */
export async function readWorkspaceHead(workspace: string, signal?: AbortSignal, sandbox?: WorkspaceSandbox): Promise<string> {
  const out = await runGit({ workspace, scratch: null, sandbox }, ["rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], { maxStdoutBytes: 256, signal });
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

/** What measuring the workspace found: churn, the patch (first 300,000 bytes) and what git was not allowed to read. */
export interface WorkspaceMeasurement {
  /** Shortstat without plans and skills, plus one file per undiffed entry outside them (counted against the candidate). */
  readonly churn: Churn;
  /** Marker lines of every undiffed entry, then the full binary patch; cut at MAX_PATCH_BYTES. */
  readonly patch: Buffer;
  readonly patchTruncated: boolean;
  readonly undiffed: readonly UndiffedEntry[];
  /** What digestWorkspaceDiff answers for the same workspace, read through the same view. */
  readonly diffDigest: string;
}

/**
 * Churn and patch of the workspace against `baseSha`, read through the harness-built `.git` by sandboxed git with
 * the workspace read-only. Files over MAX_DIFF_FILE_BYTES and nested repositories are never read by git: each is a
 * marker line in the patch and one changed file in the churn (its line counts are unknown, so none are added).
 * Also answers the diff digest (digestWorkspaceDiff's), so a measurement needs one view of the workspace, not two.
 */
export async function measureWorkspace(workspace: string, baseSha: string, privateRoot: string, signal?: AbortSignal, sandbox?: WorkspaceSandbox): Promise<WorkspaceMeasurement> {
  const view = await openDiffView(workspace, baseSha, privateRoot, signal, sandbox);
  try {
    // The shortstat (text, never a NUL), a NUL, then the digest's diff: one sandbox start-up, after the add.
    const statAndDigest = await runGitScript(view, "git add / diff --shortstat / diff", withAdd([SHORTSTAT, DIGEST_DIFF]), [baseSha], { maxStdoutBytes: (1 << 16) + 1 + DIGEST_DIFF_BYTES, stdin: view.addStdin, gits: 3, signal });
    const cut = statAndDigest.stdout.indexOf(0);
    if (cut === -1 || cut > 1 << 16) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", "git diff --shortstat answered more than a short summary");
    const diff = await runGit(view, [...DIFF, "--binary", baseSha, "--", "."], { maxStdoutBytes: MAX_PATCH_BYTES, signal });
    const shortstat = parseShortstat(statAndDigest.stdout.subarray(0, cut).toString("utf8"));
    const churn = { ...shortstat, files: shortstat.files + view.undiffed.filter((entry) => inChurn(entry.path)).length };
    const whole = Buffer.concat([Buffer.from(view.undiffed.map(formatUndiffedMarker).join(""), "utf8"), diff.stdout]);
    const diffDigest = digestDiff(view, statAndDigest.stdout.subarray(cut + 1));
    return { churn, patch: whole.subarray(0, MAX_PATCH_BYTES), patchTruncated: diff.overflow || whole.length > MAX_PATCH_BYTES, undiffed: view.undiffed, diffDigest };
  } finally {
    await closeDiffView(view);
  }
}

/**
 * Plan documents: direct `*.md` / `*.html` entries of docs/plans with their sha256. Every component of every path is
 * lstat'ed (a planted `docs` or `docs/plans` link is reported, never followed onto the host) and each document is read
 * through a no-follow handle; a link or special entry on the way is returned in `unsafe`.
 */
export async function listPlanDocuments(workspace: string): Promise<{ docs: ReadonlyMap<string, string>; unsafe: readonly string[] }> {
  const docs = new Map<string, string>();
  const unsafe: string[] = [];
  const dir = await inspectRelativePath(workspace, PLAN_DIR);
  if (dir.kind === "absent") return { docs, unsafe };
  if (dir.kind === "unsafe-parent") return { docs, unsafe: [dir.component] };
  if (dir.kind !== "directory") return { docs, unsafe: [PLAN_DIR] };
  for (const name of (await readdir(join(workspace, PLAN_DIR))).sort()) {
    if (!/\.(?:md|html)$/u.test(name)) continue;
    const rel = `${PLAN_DIR}/${name}`;
    const entry = await inspectRelativePath(workspace, rel);
    const handle = entry.kind === "file" ? await openWorkspaceFile(join(workspace, rel), entry) : null;
    if (handle === null) {
      unsafe.push(rel);
      continue;
    }
    try {
      docs.set(rel, (await sha256Stream(handle.createReadStream({ autoClose: false }))).sha256);
    } finally {
      await handle.close();
    }
  }
  return { docs, unsafe };
}

/** Plan documents created or changed between two listings. */
export function diffPlanDocuments(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...after].filter(([path, digest]) => before.get(path) !== digest).map(([path]) => path).sort();
}
