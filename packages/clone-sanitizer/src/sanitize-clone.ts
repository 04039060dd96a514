import { chmod, lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UnsafeLayoutError, SanitizerError } from "./errors.js";
import { inspectRelativePath } from "./inspect-path.js";
import { HARNESS_HIDDEN_PATHS, SETTINGS_STUB_CONTENT, SETTINGS_STUB_PATHS } from "./schema.js";
import type { DeclarationRejection, Result } from "./result.js";
import type { GitOutcome } from "./git-runner.js";
import { runGit, runGitOnOwnConfig, type GitContext, type RunGitOptions } from "./run-git.js";

/** One git call in the clone being sanitized, once its config is the harness's own (see sanitizeClone). */
type CloneGit = (args: readonly string[], options?: RunGitOptions) => Promise<GitOutcome>;

/** Identity and date of every sanitized commit (spec §7.2): fixed so one source tree always yields one sha. */
export const SANITIZED_COMMIT = {
  name: "GitNexus Workflow Benchmark",
  email: "workflow-bench.invalid",
  date: "2000-01-01T00:00:00Z",
  message: "Sanitized benchmark task snapshot",
} as const;

/** At most this many refs are deleted; more means the clone is not what the sanitizer expects. */
export const MAX_CLONE_REFS = 1024;

/** Pseudo-refs deleted from `.git`; each must be a regular file if present. */
export const PSEUDO_REFS: readonly string[] = [
  "AUTO_MERGE",
  "BISECT_START",
  "CHERRY_PICK_HEAD",
  "FETCH_HEAD",
  "MERGE_HEAD",
  "ORIG_HEAD",
  "REBASE_HEAD",
  "REVERT_HEAD",
  "shallow",
];

// Everything else under .git (logs, worktrees, rr-cache, sequencer state, info/grafts, hooks, modules, …)
// can hold old bytes or re-root history, so it is deleted rather than enumerated.
const KEPT_GIT_ENTRIES = new Set(["HEAD", "config", "index", "objects", "refs"]);

/** One file to overwrite with inert content before the sanitized commit. */
export interface NeutralizeEntry {
  readonly path: string;
  readonly content: string;
}

/** What the sanitizer needs to know about a checkout. */
export interface SanitizeRequest {
  readonly hiddenPaths: readonly string[];
  readonly neutralize: readonly NeutralizeEntry[];
}

/** Facts recorded while sanitizing; the verifier checks them afterwards. */
export interface SanitizeOutcome {
  readonly originalSha: string;
  readonly sanitizedSha: string;
  readonly tree: string;
  readonly objectFormat: "sha1" | "sha256";
  /** Object ids (trees, blobs, gitlinks) found under the hidden paths in the original commit. */
  readonly hiddenObjects: readonly string[];
  /** Every path removed: the request's plus the harness folders (sorted, deduplicated). */
  readonly hiddenPaths: readonly string[];
  /** Each settings stub written, and whether the task repo shipped a file there (tracked or not) that it replaced. */
  readonly settingsStubs: readonly { readonly path: string; readonly shipped: boolean }[];
}

/**
 * Turn a checked-out clone into a parentless, ref-less, remote-less single-commit repository without the hidden
 * paths. Trusts the clone to be private to this process; refuses symlinked components in any declared path.
 */
export async function sanitizeClone(
  ctx: GitContext,
  clone: string,
  request: SanitizeRequest,
): Promise<Result<SanitizeOutcome, DeclarationRejection>> {
  await assertRealDirectory(clone, "checkout root");
  await assertRealDirectory(join(clone, ".git"), ".git");
  const originalSha = (await runGit(ctx, clone, ["rev-parse", "--verify", "HEAD^{commit}"])).stdout.trim();
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(originalSha)) {
    throw new SanitizerError("SANITIZER_BAD_HEAD", `HEAD is not a 40/64-hex commit: ${originalSha.slice(0, 80)}`);
  }
  const objectFormatRaw = (await runGit(ctx, clone, ["rev-parse", "--show-object-format"])).stdout.trim();
  const objectFormat = objectFormatRaw === "sha256" ? "sha256" : "sha1";
  // Before any command reads the index or worktree: a config we did not write may define filter drivers
  // (named by in-tree .gitattributes), hooks or fsmonitor that `-c` overrides cannot all reach.
  await refuseCommonDir(clone);
  await writeMinimalConfig(clone, objectFormat);
  await rm(join(clone, ".git", "hooks"), { recursive: true, force: true });
  // From here on the only config git reads is the one just written (system and global are off in every hardened
  // call, and without a commondir or worktree-config extension nothing else joins it), and no step below writes
  // config: no filter driver can exist, so each call skips runGit's listing of them (a second sandbox start).
  const git: CloneGit = (args, options) => runGitOnOwnConfig(ctx, clone, args, options);

  const layout = await checkDeclaredLayout(git, clone, request);
  if (!layout.ok) return layout;
  const hiddenPaths = layout.value;

  const hiddenObjects = await collectHiddenObjects(git, hiddenPaths);
  await removeHiddenPaths(git, clone, hiddenPaths);
  await neutralizeFiles(git, clone, request.neutralize);
  const settingsStubs = await writeSettingsStubs(git, clone);

  const tree = (await git(["write-tree"])).stdout.trim();
  const sanitizedSha = (
    await git(
      [
        "-c",
        `user.name=${SANITIZED_COMMIT.name}`,
        "-c",
        `user.email=${SANITIZED_COMMIT.email}`,
        "commit-tree",
        tree,
        "-m",
        SANITIZED_COMMIT.message,
      ],
      { env: { GIT_AUTHOR_DATE: SANITIZED_COMMIT.date, GIT_COMMITTER_DATE: SANITIZED_COMMIT.date } },
    )
  ).stdout.trim();
  // Compare-and-swap: if anything moved HEAD since we read it, the update fails instead of clobbering.
  await git(["update-ref", "--no-deref", "HEAD", sanitizedSha, originalSha]);

  await deleteAllRefs(git, clone);
  await git(["reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all"]);
  await removePseudoRefs(clone);
  await pruneGitDirectory(clone, objectFormat);
  await rebuildIndex(git, clone);
  await git(["repack", "-a", "-d", "-q"], { long: true });
  await git(["prune", "--expire=now"], { long: true });
  await git(["prune-packed", "-q"], { long: true });
  await git(["update-index", "-q", "--refresh"], { accept: [0, 1] });
  return { ok: true, value: { originalSha, sanitizedSha, tree, objectFormat, hiddenObjects, hiddenPaths, settingsStubs } };
}

async function assertRealDirectory(path: string, label: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined || !stat.isDirectory()) throw new UnsafeLayoutError(path, `${label} must be a real directory`);
}

/** Checks the declared layout and returns the paths to remove (declared plus applicable harness folders). */
async function checkDeclaredLayout(
  git: CloneGit,
  clone: string,
  request: SanitizeRequest,
): Promise<Result<string[], DeclarationRejection>> {
  const hidden = new Set<string>();
  for (const [i, path] of request.hiddenPaths.entries()) {
    const seen = await inspectRelativePath(clone, path);
    if (seen.kind === "unsafe-parent") {
      return reject(`hiddenPaths[${i}]`, `component ${seen.component} ${seen.reason}; refusing to delete through it`);
    }
    hidden.add(path);
  }
  for (const path of HARNESS_HIDDEN_PATHS) {
    if (hidden.has(path)) continue;
    const seen = await inspectRelativePath(clone, path);
    if (seen.kind === "unsafe-parent") {
      // A symlinked `eval` cannot hold a committed harness tree; deleting through it would hit its target.
      const committed = await git(["ls-tree", "-r", "--name-only", "HEAD", "--", path]);
      if (committed.stdout !== "") {
        return reject("hiddenPaths", `harness folder ${path}: component ${seen.component} ${seen.reason}`);
      }
      continue;
    }
    hidden.add(path);
  }
  for (const path of SETTINGS_STUB_PATHS) {
    const seen = await inspectRelativePath(clone, path);
    if (seen.kind === "unsafe-parent") return reject("settingsStubs", `${path}: component ${seen.component} ${seen.reason}`);
    if (seen.kind === "directory" || seen.kind === "symlink" || seen.kind === "special") {
      return reject("settingsStubs", `${path} is a ${seen.kind}, expected a regular file or nothing`);
    }
  }
  for (const [i, entry] of request.neutralize.entries()) {
    const seen = await inspectRelativePath(clone, entry.path);
    if (seen.kind === "unsafe-parent") {
      return reject(`neutralize[${i}].path`, `component ${seen.component} ${seen.reason}`);
    }
    if (seen.kind === "directory" || seen.kind === "symlink" || seen.kind === "special") {
      return reject(`neutralize[${i}].path`, `is a ${seen.kind}, expected a regular file or nothing`);
    }
  }
  return { ok: true, value: [...hidden].sort() };
}

function reject(field: string, message: string): { ok: false; error: DeclarationRejection } {
  return { ok: false, error: { kind: "invalid-declaration", field, message } };
}

async function collectHiddenObjects(git: CloneGit, hiddenPaths: readonly string[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const path of hiddenPaths) {
    const listed = await git(["ls-tree", "-r", "-t", "-z", "--format=%(objectname)", "HEAD", "--", path]);
    for (const id of listed.stdout.split("\0")) if (id !== "") ids.add(id);
  }
  return [...ids].sort();
}

async function removeHiddenPaths(git: CloneGit, clone: string, hiddenPaths: readonly string[]): Promise<void> {
  if (hiddenPaths.length === 0) return;
  await git(
    ["rm", "-r", "--force", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"],
    { input: hiddenPaths.map((p) => `${p}\0`).join("") },
  );
  // Untracked or ignored leftovers are removed too; parents were checked to be real directories.
  for (const path of hiddenPaths) await rm(join(clone, path), { recursive: true, force: true });
}

async function neutralizeFiles(git: CloneGit, clone: string, entries: readonly NeutralizeEntry[]): Promise<void> {
  for (const entry of entries) {
    const seen = await inspectRelativePath(clone, entry.path);
    const tracked = await git(["ls-files", "-z", "--", entry.path]);
    if (seen.kind === "absent" && tracked.stdout === "") continue;
    await writeFile(join(clone, entry.path), entry.content, { mode: 0o644 });
    // writeFile keeps an existing file's mode; an executable bit left behind would dirty the status.
    await chmod(join(clone, entry.path), 0o644);
    // --no-filters: the inert bytes are stored as given, never passed through a repo-declared clean filter.
    const oid = (
      await git(["hash-object", "-w", "--no-filters", "--stdin"], { input: entry.content })
    ).stdout.trim();
    await git(["update-index", "--add", "--cacheinfo", `100644,${oid},${entry.path}`]);
  }
}

// Unlike a neutralize entry, a stub is written whether or not the repo has the file: sessions bind over it, and a bind
// target bwrap had to create would show up in the candidate's diff.
async function writeSettingsStubs(git: CloneGit, clone: string): Promise<{ path: string; shipped: boolean }[]> {
  const written: { path: string; shipped: boolean }[] = [];
  const oid = (await git(["hash-object", "-w", "--no-filters", "--stdin"], { input: SETTINGS_STUB_CONTENT })).stdout.trim();
  for (const path of SETTINGS_STUB_PATHS) {
    const seen = await inspectRelativePath(clone, path);
    const tracked = await git(["ls-files", "-z", "--", path]);
    // The layout check refused links and non-directories on the way; only missing parents are created here.
    await mkdir(dirname(join(clone, path)), { recursive: true, mode: 0o755 });
    await writeFile(join(clone, path), SETTINGS_STUB_CONTENT, { mode: 0o644 });
    await chmod(join(clone, path), 0o644);
    await git(["update-index", "--add", "--cacheinfo", `100644,${oid},${path}`]);
    written.push({ path, shipped: seen.kind !== "absent" || tracked.stdout !== "" });
  }
  return written;
}

async function deleteAllRefs(git: CloneGit, clone: string): Promise<void> {
  const listed = await git(["for-each-ref", "--format=%(refname)"]);
  const refs = listed.stdout.split("\n").filter((line) => line !== "");
  if (refs.length > MAX_CLONE_REFS) {
    throw new SanitizerError("SANITIZER_TOO_MANY_REFS", `clone has ${refs.length} refs (limit ${MAX_CLONE_REFS})`);
  }
  for (const ref of refs) {
    if (!ref.startsWith("refs/") || /\s/.test(ref)) {
      throw new SanitizerError("SANITIZER_BAD_REF", `unexpected ref name ${JSON.stringify(ref.slice(0, 200))}`);
    }
  }
  if (refs.length > 0) {
    await git(["update-ref", "--no-deref", "--stdin"], {
      input: refs.map((ref) => `delete ${ref}\n`).join(""),
    });
  }
  // Per-worktree refs (bisect, rewritten, worktree/*) are not always listed; the directories go wholesale.
  await rm(join(clone, ".git", "refs"), { recursive: true, force: true });
  await rm(join(clone, ".git", "packed-refs"), { force: true });
  await mkdir(join(clone, ".git", "refs", "heads"), { recursive: true });
  await mkdir(join(clone, ".git", "refs", "tags"), { recursive: true });
}

async function removePseudoRefs(clone: string): Promise<void> {
  for (const name of PSEUDO_REFS) {
    const path = join(clone, ".git", name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat === undefined) continue;
    if (!stat.isFile()) throw new UnsafeLayoutError(path, "pseudo-ref is not a regular file");
    await rm(path);
  }
}

async function pruneGitDirectory(clone: string, objectFormat: "sha1" | "sha256"): Promise<void> {
  const gitDir = join(clone, ".git");
  for (const name of await readdir(gitDir)) {
    if (!KEPT_GIT_ENTRIES.has(name)) await rm(join(gitDir, name), { recursive: true, force: true });
  }
  await writeMinimalConfig(clone, objectFormat);
  await pruneObjectStore(join(gitDir, "objects"), objectFormat);
}

async function pruneObjectStore(objects: string, objectFormat: "sha1" | "sha256"): Promise<void> {
  // git ignores (and so never prunes) files it does not recognise as objects or packs, yet they keep their
  // bytes: anything but fan-out directories of well-formed loose objects and named pack/index pairs goes.
  const hexLength = objectFormat === "sha256" ? 64 : 40;
  const looseName = new RegExp(`^[0-9a-f]{${hexLength - 2}}$`);
  // .keep/.promisor/.mtimes would make repack retain a pack (and its unreachable objects) as-is.
  const packName = new RegExp(`^pack-[0-9a-f]{${hexLength}}\\.(?:pack|idx)$`);
  for (const entry of await readdir(objects, { withFileTypes: true })) {
    const path = join(objects, entry.name);
    if (entry.isDirectory() && /^[0-9a-f]{2}$/.test(entry.name)) {
      await removeUnmatched(path, looseName);
    } else if (entry.isDirectory() && entry.name === "pack") {
      await removeUnmatched(path, packName);
    } else {
      // Includes info/ (alternates, commit-graph, packs) and quarantine or temporary directories.
      await rm(path, { recursive: true, force: true });
    }
  }
  await mkdir(join(objects, "info"));
  await mkdir(join(objects, "pack"), { recursive: true });
}

async function removeUnmatched(dir: string, keep: RegExp): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!(entry.isFile() && keep.test(entry.name))) await rm(join(dir, entry.name), { recursive: true, force: true });
  }
}

async function rebuildIndex(git: CloneGit, clone: string): Promise<void> {
  // Index extensions (cache-tree, resolve-undo, untracked cache) can name old objects and keep them alive.
  await rm(join(clone, ".git", "index"), { force: true });
  await git(["read-tree", "HEAD"]);
}

/** The only repository config the harness ever writes: the object format and core basics, nothing else. */
export function minimalGitConfig(objectFormat: "sha1" | "sha256"): string {
  return objectFormat === "sha256"
    ? "[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[extensions]\n\tobjectformat = sha256\n"
    : "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";
}

async function writeMinimalConfig(clone: string, objectFormat: "sha1" | "sha256"): Promise<void> {
  // A fresh config drops remotes, branch tracking, includes, filters and anything else the clone carried; removed
  // first and created exclusively, so a config planted as a link is replaced, never written through.
  const path = join(clone, ".git", "config");
  await rm(path, { force: true });
  await writeFile(path, minimalGitConfig(objectFormat), { mode: 0o644, flag: "wx" });
}

/**
 * Refuses a `.git/commondir` (never in a fresh clone): git would read the config of the directory it names instead of
 * the one the sanitizer writes, and a filter driver there would run on the skipped-listing calls.
 */
async function refuseCommonDir(clone: string): Promise<void> {
  const stat = await lstat(join(clone, ".git", "commondir")).catch(() => undefined);
  if (stat !== undefined) throw new UnsafeLayoutError(join(clone, ".git", "commondir"), "a clone to sanitize must not borrow another git directory's config (commondir)");
}
