import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { assertSelfContained } from "./assert-self-contained.js";
import { NotSelfContainedError, TemplateVerificationError } from "./errors.js";
import { PSEUDO_REFS, type SanitizeOutcome } from "./sanitize-clone.js";
import { runGit, type GitContext } from "./run-git.js";

/**
 * Re-check a sanitized clone from scratch and throw TemplateVerificationError on the first failure: no refs, no
 * remotes, no reflogs, nothing unreachable, the original commit and hidden objects gone, hidden paths absent,
 * clean status, detached parentless HEAD. Trusts nothing the sanitizer reported except the ids it must check.
 */
export async function verifySanitizedClone(
  ctx: GitContext,
  clone: string,
  outcome: SanitizeOutcome,
  hiddenPaths: readonly string[],
): Promise<void> {
  const refs = await runGit(ctx, clone, ["for-each-ref", "--format=%(refname)"]);
  if (refs.stdout.trim() !== "") fail("no-refs", `refs remain: ${refs.stdout.trim().split("\n").slice(0, 5).join(", ")}`);
  for (const leftover of ["packed-refs", "logs", "worktrees", ...PSEUDO_REFS]) {
    if (await exists(join(clone, ".git", leftover))) fail("no-leftovers", `.git/${leftover} still exists`);
  }
  const remotes = await runGit(ctx, clone, ["remote"]);
  if (remotes.stdout.trim() !== "") fail("no-remotes", `remotes remain: ${remotes.stdout.trim()}`);

  const fsck = await runGit(ctx, clone, ["fsck", "--full", "--no-progress", "--no-reflogs", "--unreachable"], {
    accept: [0, 1, 2, 4, 8],
    long: true,
  });
  if (fsck.exitCode !== 0 || fsck.stdout !== "" || fsck.stderr !== "") {
    fail("fsck-unreachable", `fsck exit ${fsck.exitCode}: ${(fsck.stdout + fsck.stderr).slice(0, 300)}`);
  }

  const head = (await runGit(ctx, clone, ["rev-parse", "--verify", "HEAD"])).stdout.trim();
  if (head !== outcome.sanitizedSha) fail("head", `HEAD is ${head}, expected ${outcome.sanitizedSha}`);
  const symbolic = await runGit(ctx, clone, ["symbolic-ref", "-q", "HEAD"], { accept: [0, 1, 128] });
  if (symbolic.exitCode === 0) fail("detached-head", `HEAD points at ${symbolic.stdout.trim()}`);
  const parents = await runGit(ctx, clone, ["show", "-s", "--format=%P", "HEAD"]);
  if (parents.stdout.trim() !== "") fail("parentless", `HEAD has parents ${parents.stdout.trim()}`);

  // A hidden blob whose exact bytes also sit at a visible path is visible anyway; only the rest must vanish.
  const visible = await listTreeObjects(ctx, clone);
  const mustBeGone = [outcome.originalSha, ...outcome.hiddenObjects.filter((id) => !visible.has(id))];
  if (mustBeGone.length > 0) {
    const check = await runGit(ctx, clone, ["cat-file", "--batch-check=%(objectname)"], {
      input: mustBeGone.map((id) => `${id}\n`).join(""),
    });
    const found = check.stdout.split("\n").filter((line) => line !== "" && !line.endsWith(" missing"));
    if (found.length > 0) fail("hidden-objects-gone", `still readable: ${found.slice(0, 5).join(", ")}`);
  }
  const original = await runGit(ctx, clone, ["cat-file", "-e", outcome.originalSha], { accept: [0, 1, 128] });
  if (original.exitCode === 0) fail("original-gone", `original commit ${outcome.originalSha} is still readable`);

  for (const path of new Set([...hiddenPaths, ...outcome.hiddenPaths])) {
    const listed = await runGit(ctx, clone, ["ls-tree", "-r", "--name-only", "HEAD", "--", path]);
    if (listed.stdout !== "") fail("hidden-absent-from-tree", `${path} is still in the sanitized tree`);
    if (await exists(join(clone, path))) fail("hidden-absent-from-disk", `${path} still exists on disk`);
  }

  const status = await runGit(ctx, clone, ["status", "--porcelain=v1", "--untracked-files=all"]);
  if (status.stdout !== "") fail("clean-status", `status not clean: ${status.stdout.slice(0, 300)}`);
  await assertWorktreeIsTree(ctx, clone);

  try {
    await assertSelfContained(clone);
  } catch (error) {
    if (error instanceof NotSelfContainedError) fail("self-contained", error.message);
    throw error;
  }
}

async function assertWorktreeIsTree(ctx: GitContext, clone: string): Promise<void> {
  // status hides ignored files, empty directories and whatever sits inside a gitlink's directory; a copy of the
  // template carries all of them, so the worktree must hold exactly the tracked paths and their parents.
  const listed = await runGit(ctx, clone, ["ls-files", "-z", "--stage"]);
  const files = new Set<string>();
  const gitlinks = new Set<string>();
  const parents = new Set<string>();
  for (const record of listed.stdout.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const path = record.slice(tab + 1);
    (record.startsWith("160000 ") ? gitlinks : files).add(path);
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) parents.add(path.slice(0, slash));
  }
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (rel === ".git") continue;
      if (entry.isDirectory() && gitlinks.has(rel)) {
        if ((await readdir(join(dir, entry.name))).length > 0) fail("worktree-exact", `${rel} (a gitlink) is not empty`);
      } else if (entry.isDirectory() && parents.has(rel)) {
        await walk(join(dir, entry.name), rel);
      } else if (entry.isDirectory() || !files.has(rel)) {
        fail("worktree-exact", `${JSON.stringify(rel.slice(0, 200))} is not a tracked path`);
      }
    }
  };
  await walk(clone, "");
}

async function listTreeObjects(ctx: GitContext, clone: string): Promise<Set<string>> {
  const listed = await runGit(ctx, clone, ["ls-tree", "-r", "-t", "-z", "--format=%(objectname)", "HEAD"]);
  return new Set(listed.stdout.split("\0").filter((id) => id !== ""));
}

function fail(check: string, message: string): never {
  throw new TemplateVerificationError(check, message);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
