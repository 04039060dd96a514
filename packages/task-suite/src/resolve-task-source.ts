import { cp, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "@wfbench/clone-sanitizer";
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
}

/** An expected refusal: the ref does not resolve, or the source is neither a repository nor a directory. */
export interface SourceRefusal {
  readonly task: string;
  readonly field: "repo" | "ref";
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

async function assertPlainTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink() || !(entry.isDirectory() || entry.isFile())) {
      throw new TaskSuiteError("TASK_SUITE_SOURCE_INVALID", `${path} is not a regular file or directory; plain-file task sources hold only files and directories`);
    }
    if (entry.isDirectory()) await assertPlainTree(path);
  }
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
 * source or ref as a value and throws TaskSuiteError when git or the copy fails.
 */
export function createTaskSourceResolver(options: TaskSourceResolverOptions): TaskSourceResolver {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const memo = new Map<string, Promise<ResolveSourceResult>>();
  const build = async (task: Task): Promise<ResolveSourceResult> => {
    const kind = await kindOf(task.repo);
    if (kind === "missing") return { ok: false, error: { task: task.id, field: "repo", message: `${task.repo} is not a directory` } };
    if (kind === "dir") {
      if (task.ref !== "HEAD") return { ok: false, error: { task: task.id, field: "ref", message: `a plain-file source has only HEAD, not ${JSON.stringify(task.ref)}` } };
      await assertPlainTree(task.repo);
      const dest = join(options.workDir, sha256Hex(task.repo).slice(0, 16));
      await mkdir(options.workDir, { recursive: true, mode: 0o700 });
      await cp(task.repo, dest, { recursive: true, errorOnExist: true, force: false });
      await git(options.git, dest, ["init", "-q", "."], timeoutMs);
      await git(options.git, dest, ["add", "-A", "."], timeoutMs);
      await git(options.git, dest, ["commit", "-q", "--no-verify", "-m", "task source"], timeoutMs, PLAIN_SOURCE_COMMIT_ENV);
      const sha = (await git(options.git, dest, ["rev-parse", "--verify", "HEAD^{commit}"], timeoutMs)).trim();
      return { ok: true, value: { repo: dest, sha, origin: "plain-files" } };
    }
    const top = (await git(options.git, task.repo, ["rev-parse", "--show-toplevel"], timeoutMs)).trim();
    const outcome = await options.git.run({ argv: [...HARDENING, "rev-parse", "--verify", "--end-of-options", `${task.ref}^{commit}`], cwd: top, timeoutMs, maxOutputBytes: 4096 });
    const sha = outcome.stdout.trim();
    if (outcome.exitCode !== 0 || !SHA_PATTERN.test(sha)) {
      return { ok: false, error: { task: task.id, field: "ref", message: `${JSON.stringify(task.ref)} does not name a commit in ${top}` } };
    }
    return { ok: true, value: { repo: top, sha, origin: "git" } };
  };
  return {
    resolve(task: Task): Promise<ResolveSourceResult> {
      const key = `${task.repo}\0${task.ref}`;
      let pending = memo.get(key);
      if (pending === undefined) {
        pending = build(task);
        memo.set(key, pending);
      }
      return pending;
    },
  };
}
