import { createHash } from "node:crypto";
import { lstat, readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { createSandboxedGitRunner, isSanitizerError, type GitRunner } from "@wfbench/clone-sanitizer";
import { sha256Hex } from "@wfbench/digest";
import { listMirrorTargets } from "@wfbench/promotion-gate";
import { EvolveLoopError } from "./errors.js";

const GIT_TIMEOUT_MS = 60_000;

/** One read-only git call in `repoRoot`; a git that cannot run there is the repo root's problem, named as such. */
async function git(runner: GitRunner, repoRoot: string, argv: readonly string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  try {
    return await runner.run({ argv, cwd: repoRoot, timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: 4 * 1024 * 1024 });
  } catch (error) {
    if (isSanitizerError(error)) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--repo-root ${repoRoot}: git ${argv[0] ?? ""} could not run there (${error.message}): pass a git working tree outside system directories`, { cause: error });
    throw error;
  }
}

/** The git object id of `bytes` as a blob (what `git hash-object` prints), to compare live bytes with HEAD's. */
function gitBlobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
}

async function liveBytes(path: string): Promise<Buffer | null> {
  const stat = await lstat(path).catch(() => null);
  if (stat === null) return null;
  if (!stat.isFile()) throw new EvolveLoopError("EVOLVE_LOOP_TARGET_DRIFT", `${path} is not a regular file (a link or directory): restore the committed file`);
  return readFile(path);
}

/**
 * Checks that `repoRoot` is the top of a git working tree and returns its real path. Git runs sandboxed, read-only.
 * Throws EVOLVE_LOOP_BAD_INPUT when it is not.
 */
export async function checkRepoRoot(repoRoot: string, runner: GitRunner = createSandboxedGitRunner({ writableRoots: [], readOnlyRoots: [repoRoot] })): Promise<string> {
  const real = await realpath(repoRoot).catch(() => null);
  if (real === null) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--repo-root ${repoRoot} does not exist: pass the git working tree that holds .claude/skills`);
  const top = await git(runner, real, ["rev-parse", "--show-toplevel"]);
  if (top.exitCode !== 0) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--repo-root ${repoRoot} is not a git working tree (${top.stderr.trim().slice(-200)}): pass the repository whose .claude/skills the overlay replaces`);
  if (top.stdout.trim() !== real) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--repo-root ${repoRoot} is inside the working tree ${top.stdout.trim()}, not its top: pass ${top.stdout.trim()}`);
  return real;
}

/**
 * The committed base digest (sha256 of the bytes at HEAD) of every destination of the overlay files at `paths`: the
 * canonical path and each shipped mirror that HEAD holds (reference §4.5, §9.1). The live working-tree bytes of each
 * must equal HEAD's. Trusts nothing in the tree; throws EvolveLoopError(EVOLVE_LOOP_TARGET_DRIFT) naming the path
 * when a destination holds uncommitted or drifted bytes, when a mirror exists only in the working tree, or when the
 * canonical target is not committed at all.
 */
export async function pinTargetBases(repoRoot: string, paths: readonly string[], runner: GitRunner = createSandboxedGitRunner({ writableRoots: [], readOnlyRoots: [repoRoot] })): Promise<Record<string, string>> {
  const targets = paths.flatMap((path) => listMirrorTargets(path).map((target, index) => ({ target, canonical: index === 0 })));
  const listed = await git(runner, repoRoot, ["ls-tree", "-z", "--full-tree", "HEAD", "--", ...targets.map((t) => t.target)]);
  if (listed.exitCode !== 0) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `git ls-tree HEAD in ${repoRoot} failed (${listed.stderr.trim().slice(-200)}): --repo-root needs at least one commit`);
  const committed = new Map<string, { type: string; id: string }>();
  for (const entry of listed.stdout.split("\0")) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.+)$/su.exec(entry);
    if (match !== null) committed.set(match[4] as string, { type: match[2] as string, id: match[3] as string });
  }
  const bases: Record<string, string> = {};
  for (const { target, canonical } of targets) {
    const head = committed.get(target);
    const live = await liveBytes(join(repoRoot, target));
    if (head === undefined) {
      if (canonical) throw new EvolveLoopError("EVOLVE_LOOP_TARGET_DRIFT", `${target} is not committed at HEAD of ${repoRoot}: the overlay's canonical target must be a committed incumbent skill file; commit it first`);
      if (live !== null) throw new EvolveLoopError("EVOLVE_LOOP_TARGET_DRIFT", `${target}: uncommitted or drifted bytes (the mirror exists in the working tree but not at HEAD): commit or remove it`);
      continue;
    }
    if (head.type !== "blob") throw new EvolveLoopError("EVOLVE_LOOP_TARGET_DRIFT", `${target} is a ${head.type} at HEAD, not a file`);
    if (live === null || gitBlobId(live) !== head.id) throw new EvolveLoopError("EVOLVE_LOOP_TARGET_DRIFT", `${target}: uncommitted or drifted bytes (the working tree ${live === null ? "lacks the file" : "differs from HEAD"}): commit or restore it before evolving`);
    bases[target] = sha256Hex(live);
  }
  return bases;
}
