import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureEnv } from "./git-fixture.js";

function rawGit(cwd: string, args: readonly string[]): { status: number; stdout: string } {
  try {
    const stdout = execFileSync("/usr/bin/git", args, {
      cwd,
      env: { ...fixtureEnv(cwd), GIT_NO_REPLACE_OBJECTS: "1" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 256 * 1024 * 1024,
    });
    return { status: 0, stdout };
  } catch (error) {
    const e = error as { status?: number; stdout?: string };
    return { status: e.status ?? -1, stdout: e.stdout ?? "" };
  }
}

/** Every byte a model could reach with git or by reading files: all objects (reachable or not) plus raw files. */
export function recoverableText(repo: string): string {
  const parts: string[] = [];
  parts.push(rawGit(repo, ["cat-file", "--batch-all-objects", "--batch", "--unordered"]).stdout);
  parts.push(rawGit(repo, ["log", "--all", "--reflog", "-p", "--format=%H %B"]).stdout);
  parts.push(rawGit(repo, ["fsck", "--lost-found", "--unreachable", "--no-reflogs"]).stdout);
  parts.push(rawGit(repo, ["stash", "list", "-p"]).stdout);
  parts.push(rawGit(repo, ["notes", "list"]).stdout);
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) parts.push(readFileSync(path, "latin1"));
    }
  };
  // Raw files everywhere (objects are zlib-compressed, so they were covered through cat-file above).
  walk(repo);
  return parts.join("\n");
}

/** Exit status of `git cat-file -e <id>` in `repo` (0 means the object is readable). */
export function objectExists(repo: string, id: string): boolean {
  return rawGit(repo, ["cat-file", "-e", id]).status === 0;
}

/** Number of commits reachable from anything, reflogs included. */
export function countAllCommits(repo: string): number {
  return rawGit(repo, ["rev-list", "--all", "--reflog"]).stdout.split("\n").filter((l) => l !== "").length;
}

/** Output of `git fsck --unreachable --no-reflogs` (should be empty after sanitizing). */
export function unreachableReport(repo: string): string {
  return rawGit(repo, ["fsck", "--unreachable", "--no-reflogs", "--no-progress"]).stdout.trim();
}
