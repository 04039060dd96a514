import { chmod, lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { assertSelfContained } from "./assert-self-contained.js";
import { copyTree } from "./copy-tree.js";
import { SanitizerError } from "./errors.js";
import { HARDENED_GIT_CONFIG, HARDENED_GIT_ENV } from "./harden-git.js";
import { inspectRelativePath } from "./inspect-path.js";
import { DEFAULT_GIT_TIMEOUTS, runGitOnOwnConfig } from "./run-git.js";
import { minimalGitConfig } from "./sanitize-clone.js";
import { createSandboxedGitRunner } from "./sandboxed-git-runner.js";

/**
 * `$GIT_DIR/info/attributes` outranks every `.gitattributes` in the tree: each attribute that makes git transform or
 * classify content is reset to unspecified, so no in-tree file can turn on a filter, textconv, eol or encoding
 * conversion, or mark a file binary to hide its lines (git 2.39 has no `--attr-source` to skip the tree's files).
 */
export const HARNESS_GIT_ATTRIBUTES = "* !text !eol !crlf !ident !filter !diff !merge !working-tree-encoding\n";

/**
 * Config every git the harness starts after a session gets on its command line (outranking the repository's own), on
 * top of HARDENED_GIT_CONFIG: no global attributes or excludes file, no external diff, no submodule recursion.
 */
export const WORKSPACE_GIT_CONFIG: readonly string[] = [
  ...HARDENED_GIT_CONFIG,
  "core.attributesFile=/dev/null",
  "core.excludesFile=/dev/null",
  "diff.external=",
  "submodule.recurse=false",
];

/** A cell's harness-owned git directory: the base commit's objects and a config, attributes and index the harness wrote. */
export interface HarnessGitDir {
  /** The git directory itself (`<root>/.git`); nothing a session runs ever writes it. */
  readonly gitDir: string;
  /** The commit HEAD names (detached). */
  readonly headSha: string;
}

/** What buildHarnessGitDir needs. */
export interface BuildHarnessGitDirInput {
  /** The cell's checkout after setup and overlay, before any session: its object store is copied. */
  readonly checkout: string;
  /** A directory that does not exist yet, in the cell's private root. */
  readonly dest: string;
  /** The diff base (`variant_head_sha`); it must be in the copied objects. */
  readonly headSha: string;
  readonly objectFormat: "sha1" | "sha256";
  readonly timeoutMs?: number;
}

/**
 * Builds the harness's own git directory for a cell before any session: the checkout's object store copied (no links
 * followed, `objects/info` dropped, self-containment re-checked), a HEAD detached at `headSha`, the sanitizer's minimal
 * config, HARNESS_GIT_ATTRIBUTES, empty refs, no hooks, no `info/exclude`, and an index read from `headSha` by
 * sandboxed git. Trusts nothing else the checkout's `.git` holds (a task's setup may have rewritten it).
 * @throws {SanitizerError} when the object store is not a real directory, lacks the commit, or git fails.
 */
export async function buildHarnessGitDir(input: BuildHarnessGitDirInput): Promise<HarnessGitDir> {
  const objects = await inspectRelativePath(input.checkout, ".git/objects");
  if (objects.kind !== "directory") throw new SanitizerError("SANITIZER_HARNESS_GIT_FAILED", `${input.checkout}/.git/objects is not a real directory`);
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u.test(input.headSha)) throw new SanitizerError("SANITIZER_HARNESS_GIT_FAILED", `${input.headSha.slice(0, 80)} is not a commit id`);
  await mkdir(input.dest, { mode: 0o700 });
  const gitDir = join(input.dest, ".git");
  await mkdir(join(gitDir, "objects"), { recursive: true, mode: 0o755 });
  await copyTree(join(input.checkout, ".git", "objects"), join(gitDir, "objects"));
  // Alternates, commit-graphs and the like: the copy must stand alone and say nothing the harness did not check.
  await rm(join(gitDir, "objects", "info"), { recursive: true, force: true });
  await mkdir(join(gitDir, "refs", "heads"), { recursive: true });
  await mkdir(join(gitDir, "refs", "tags"), { recursive: true });
  await mkdir(join(gitDir, "info"), { recursive: true });
  await writeFile(join(gitDir, "HEAD"), `${input.headSha}\n`, { mode: 0o644 });
  await writeFile(join(gitDir, "config"), minimalGitConfig(input.objectFormat), { mode: 0o644 });
  await writeFile(join(gitDir, "info", "attributes"), HARNESS_GIT_ATTRIBUTES, { mode: 0o644 });
  await assertSelfContained(input.dest);
  const ctx = { runner: createSandboxedGitRunner({ writableRoots: [input.dest] }), timeouts: timeoutsOf(input.timeoutMs) };
  // The config and attributes above are the harness's own, written in this call into the private root.
  const head = (await runGitOnOwnConfig(ctx, input.dest, ["rev-parse", "--verify", "--end-of-options", `${input.headSha}^{commit}`])).stdout.trim();
  if (head !== input.headSha) throw new SanitizerError("SANITIZER_HARNESS_GIT_FAILED", `the copied objects resolve ${input.headSha} to ${head.slice(0, 80)}`);
  await runGitOnOwnConfig(ctx, input.dest, ["read-tree", input.headSha]);
  return { gitDir, headSha: input.headSha };
}

function timeoutsOf(timeoutMs: number | undefined): typeof DEFAULT_GIT_TIMEOUTS {
  return timeoutMs === undefined ? DEFAULT_GIT_TIMEOUTS : { shortMs: timeoutMs, longMs: timeoutMs };
}

/**
 * Puts a fresh copy of the harness git directory at `<checkout>/.git`, after moving whatever a session left there
 * (directory, file, link, or nothing) to `aside` with one rename, so nothing of it is read, followed or traversed.
 * Trusts that no process of the cell is still running (a session's sandbox dies with its CLI); `aside` must not exist.
 */
export async function installHarnessGitDir(harness: HarnessGitDir, checkout: string, aside: string): Promise<void> {
  const root = await lstat(checkout);
  if (!root.isDirectory()) throw new SanitizerError("SANITIZER_HARNESS_GIT_FAILED", `${checkout} is not a real directory`);
  // A session may leave the checkout root 0555; its owner (the harness) may always take write access back.
  if ((root.mode & 0o700) !== 0o700) await chmod(checkout, (root.mode & 0o7777) | 0o700);
  try {
    await rename(join(checkout, ".git"), aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(join(checkout, ".git"), { mode: 0o755 });
  await copyTree(harness.gitDir, join(checkout, ".git"));
}

/** Where a workspace's git lives for commands that see it (e.g. `/workspace/.git` and `/workspace` in a sandbox). */
export interface WorkspaceGitPaths {
  readonly gitDir: string;
  readonly workTree: string;
}

/**
 * The environment every git gets that the harness, a verify or an oracle command runs after a session: the harness
 * git directory named outright (no discovery, so a nested `.git` planted in the tree is never found), no system or
 * global config or attributes, WORKSPACE_GIT_CONFIG as command-line config (GIT_CONFIG_COUNT), no optional locks,
 * prompts, pagers or replace refs. Pathspecs keep their normal (magic) meaning. Trusts the paths it is given.
 */
export function buildWorkspaceGitEnv(paths: WorkspaceGitPaths): Record<string, string> {
  const { GIT_LITERAL_PATHSPECS: _literal, ...hardened } = HARDENED_GIT_ENV;
  const env: Record<string, string> = { ...hardened, GIT_DIR: paths.gitDir, GIT_WORK_TREE: paths.workTree, GIT_CONFIG_COUNT: String(WORKSPACE_GIT_CONFIG.length) };
  WORKSPACE_GIT_CONFIG.forEach((setting, index) => {
    const eq = setting.indexOf("=");
    env[`GIT_CONFIG_KEY_${index}`] = setting.slice(0, eq);
    env[`GIT_CONFIG_VALUE_${index}`] = setting.slice(eq + 1);
  });
  return env;
}
