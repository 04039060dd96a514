import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** True when a git binary is on this machine; CI requires it. */
export function hasGit(): boolean {
  try {
    execFileSync("/usr/bin/git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Fixture-building env: plain git (no hardening) so fixtures can set up the hostile state we then defeat. */
export function fixtureEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Fixture",
    GIT_AUTHOR_EMAIL: "fixture@example.invalid",
    GIT_COMMITTER_NAME: "Fixture",
    GIT_COMMITTER_EMAIL: "fixture@example.invalid",
    GIT_AUTHOR_DATE: "2020-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2020-01-01T00:00:00Z",
    LANG: "C.UTF-8",
  };
}

/** A scratch directory tree for one test. */
export function makeScratch(prefix = "wfbench-cs-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Plain git in `cwd`, returning trimmed stdout. */
export function git(cwd: string, args: readonly string[], options: { input?: string; home?: string } = {}): string {
  return execFileSync("/usr/bin/git", args, {
    cwd,
    env: fixtureEnv(options.home ?? cwd),
    input: options.input ?? "",
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
  }).trim();
}

/** Exit status of plain git (no throw). */
export function gitStatus(cwd: string, args: readonly string[], home?: string): number {
  try {
    execFileSync("/usr/bin/git", args, { cwd, env: fixtureEnv(home ?? cwd), stdio: "ignore" });
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

/** Write files (creating parents) relative to `root`. */
export function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

/** Stage everything and commit; returns the new commit id. */
export function commitAll(repo: string, message: string): string {
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "--allow-empty", "-m", message]);
  return git(repo, ["rev-parse", "HEAD"]);
}

/** `git init` a repo on branch main. */
export function initRepo(path: string): string {
  mkdirSync(path, { recursive: true });
  git(path, ["init", "-q", "-b", "main"]);
  return path;
}

/** The blob id git would give `content`. */
export function blobId(repo: string, content: string): string {
  return git(repo, ["hash-object", "--stdin"], { input: content });
}
