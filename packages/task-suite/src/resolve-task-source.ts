import { cp, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { createTaskAssetCache, type GitRunner, type TaskAssetSnapshot } from "@wfbench/clone-sanitizer";
import { sha256Hex } from "@wfbench/digest";
import { TaskSuiteError } from "./errors.js";
import type { Task } from "./load-task-suite.js";

/** A task's source as a git repository and the commit every arm starts from. */
export interface ResolvedSource {
  /** Absolute toplevel of the git repository (for plain-file sources: the repository built from them). */
  readonly repo: string;
  /** The resolved commit, lower-case hex. */
  readonly sha: string;
  readonly origin: "git" | "plain-files";
  /** The task's frozen `sandbox_copy` / `sandbox_dependencies` snapshot; null when it declares neither. */
  readonly assets: TaskAssetSnapshot | null;
}

/** An expected refusal: the ref does not resolve, the source is neither a repository nor a directory, or a plain-file source holds a link or special file. */
export interface SourceRefusal {
  readonly task: string;
  /** `repo`, `ref`, or the asset declaration at fault (`sandbox_copy[0]`, `sandbox_dependencies[1].source`, …). */
  readonly field: string;
  readonly message: string;
}

/** Result of resolving a source. */
export type ResolveSourceResult = { readonly ok: true; readonly value: ResolvedSource } | { readonly ok: false; readonly error: SourceRefusal };

/** Resolves task sources once per repository and ref for a sweep. */
export interface TaskSourceResolver {
  resolve(task: Task): Promise<ResolveSourceResult>;
}

/** Options of {@link createTaskSourceResolver}. */
export interface TaskSourceResolverOptions {
  readonly git: GitRunner;
  /** Private directory that receives repositories built from plain-file sources. */
  readonly workDir: string;
  readonly timeoutMs?: number;
}

// An asset capture past its limits or changing under the copy is the task's fault, not the environment's.
const ASSET_INPUT_CODES = new Set(["invalid-declaration", "SANITIZER_ASSET_LIMIT", "SANITIZER_ASSET_MUTATED"]);

/** Fixed identity and dates, so a plain-file source becomes the same commit on every machine and every run. */
export const PLAIN_SOURCE_COMMIT_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: "wfbench task source",
  GIT_AUTHOR_EMAIL: "task-source@wfbench.invalid",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "wfbench task source",
  GIT_COMMITTER_EMAIL: "task-source@wfbench.invalid",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};
const SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u;
const HARDENING = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"];

async function git(runner: GitRunner, cwd: string, argv: readonly string[], timeoutMs: number, env: Readonly<Record<string, string>> = {}): Promise<string> {
  const outcome = await runner.run({ argv: [...HARDENING, ...argv], cwd, env, timeoutMs, maxOutputBytes: 1 << 20 });
  if (outcome.exitCode !== 0) {
    throw new TaskSuiteError("TASK_SUITE_GIT_FAILED", `git ${argv.join(" ")} failed in ${cwd} (exit ${outcome.exitCode}): ${outcome.stderr.slice(-200)}`);
  }
  return outcome.stdout;
}

/** The first entry of a plain-file source that is not a regular file or directory (a link, FIFO…), or null. */
async function findNonPlainEntry(dir: string): Promise<string | null> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink() || !(entry.isDirectory() || entry.isFile())) return path;
    if (entry.isDirectory()) {
      const nested = await findNonPlainEntry(path);
      if (nested !== null) return nested;
    }
  }
  return null;
}

async function kindOf(path: string): Promise<"git" | "dir" | "missing"> {
  try {
    if (!(await lstat(path)).isDirectory()) return "missing";
  } catch {
    return "missing";
  }
  try {
    await lstat(join(path, ".git"));
    return "git";
  } catch {
    return "dir";
  }
}

/**
 * Resolves a task's `repo` + `ref` to a repository and commit, once per (repo, ref). A directory holding `.git` is used
 * as is (`rev-parse <ref>^{commit}`); a plain directory (how the demo suite ships its sources) is copied into `workDir`
 * and committed once with fixed author and dates, so its sha is stable. Trusts the git binary; refuses a missing
 * source or ref, and a plain-file source holding a link or special file, as values; throws TaskSuiteError when git or
 * the copy fails. A task declaring `sandbox_copy` / `sandbox_dependencies` also gets its asset snapshot, captured once
 * per (repo, sha, declarations) from the repository's working tree into `<workDir>/.task-assets` (removed with
 * `workDir`); a refused declaration, a link that dangles or leaves its dependency, or a capture past the limits comes
 * back as a refusal naming the field.
 */
export function createTaskSourceResolver(options: TaskSourceResolverOptions): TaskSourceResolver {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const memo = new Map<string, Promise<ResolveSourceResult>>();
  const build = async (task: Task): Promise<ResolveSourceResult> => {
    const kind = await kindOf(task.repo);
    if (kind === "missing") return { ok: false, error: { task: task.id, field: "repo", message: `${task.repo} is not a directory` } };
    if (kind === "dir") {
      if (task.ref !== "HEAD") return { ok: false, error: { task: task.id, field: "ref", message: `a plain-file source has only HEAD, not ${JSON.stringify(task.ref)}` } };
      // Bad input, like a ref that does not resolve: a value, so the runner exits 2 before any paid work.
      const nonPlain = await findNonPlainEntry(task.repo);
      if (nonPlain !== null) return { ok: false, error: { task: task.id, field: "repo", message: `${nonPlain} is not a regular file or directory; plain-file task sources hold only files and directories` } };
      const dest = join(options.workDir, sha256Hex(task.repo).slice(0, 16));
      await mkdir(options.workDir, { recursive: true, mode: 0o700 });
      await cp(task.repo, dest, { recursive: true, errorOnExist: true, force: false });
      await git(options.git, dest, ["init", "-q", "."], timeoutMs);
      await git(options.git, dest, ["add", "-A", "."], timeoutMs);
      await git(options.git, dest, ["commit", "-q", "--no-verify", "-m", "task source"], timeoutMs, PLAIN_SOURCE_COMMIT_ENV);
      const sha = (await git(options.git, dest, ["rev-parse", "--verify", "HEAD^{commit}"], timeoutMs)).trim();
      return { ok: true, value: { repo: dest, sha, origin: "plain-files", assets: null } };
    }
    const top = (await git(options.git, task.repo, ["rev-parse", "--show-toplevel"], timeoutMs)).trim();
    const outcome = await options.git.run({ argv: [...HARDENING, "rev-parse", "--verify", "--end-of-options", `${task.ref}^{commit}`], cwd: top, timeoutMs, maxOutputBytes: 4096 });
    const sha = outcome.stdout.trim();
    if (outcome.exitCode !== 0 || !SHA_PATTERN.test(sha)) {
      return { ok: false, error: { task: task.id, field: "ref", message: `${JSON.stringify(task.ref)} does not name a commit in ${top}` } };
    }
    return { ok: true, value: { repo: top, sha, origin: "git", assets: null } };
  };
  let assetCache: ReturnType<typeof createTaskAssetCache> | null = null;
  const withAssets = async (task: Task, source: ResolvedSource): Promise<ResolveSourceResult> => {
    if (task.sandboxCopy.length === 0 && task.sandboxDependencies.length === 0) return { ok: true, value: source };
    if (assetCache === null) {
      const cacheRoot = join(options.workDir, ".task-assets");
      await mkdir(cacheRoot, { recursive: true, mode: 0o700 });
      assetCache = createTaskAssetCache(cacheRoot);
    }
    const acquired = await assetCache.acquire({
      repoIdentity: source.origin === "git" ? source.repo : task.repo,
      resolvedSha: source.sha,
      // Dependencies (node_modules, built dist) are untracked: they come from the working tree the task names.
      sourceRoot: source.origin === "git" ? source.repo : task.repo,
      declarations: { sandbox_copy: [...task.sandboxCopy], sandbox_dependencies: task.sandboxDependencies.map((dep) => ({ ...dep })) },
      // A review_case task's patch is read from the corpus's harness checkout, not from the task repository.
      ...(task.harnessRoot === undefined ? {} : { harnessRoot: task.harnessRoot }),
    });
    if (acquired.ok) return { ok: true, value: { ...source, assets: acquired.value } };
    const failure = acquired.error;
    if (!ASSET_INPUT_CODES.has(failure.code)) {
      throw new TaskSuiteError("TASK_SUITE_ASSETS_FAILED", `task ${task.id}: ${failure.message}`, { cause: failure.cause });
    }
    const cause = failure.cause as { field?: unknown; path?: unknown };
    const field = typeof cause.field === "string" ? cause.field : task.sandboxDependencies.length > 0 ? "sandbox_dependencies" : "sandbox_copy";
    return { ok: false, error: { task: task.id, field, message: failure.message } };
  };
  return {
    async resolve(task: Task): Promise<ResolveSourceResult> {
      const key = `${task.repo}\0${task.ref}`;
      let pending = memo.get(key);
      if (pending === undefined) {
        pending = build(task);
        memo.set(key, pending);
      }
      const source = await pending;
      return source.ok ? withAssets(task, source.value) : source;
    },
  };
}
