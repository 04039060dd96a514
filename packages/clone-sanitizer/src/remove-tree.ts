import { spawn } from "node:child_process";
import { lstat, rm } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { CleanupError } from "./errors.js";

// Interim until @wfbench/durable-fs removeTree lands (same approach): fixed tool paths, no relative PATH entries.
const TOOL_ENV = { PATH: "/usr/bin:/bin", LC_ALL: "C" };

function run(command: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env: TOOL_ENV, stdio: ["ignore", "ignore", "pipe"], shell: false });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, stderr: stderr.trim() }));
  });
}

/**
 * Remove a cell or template tree an agent may have left hostile: 0555/0000 directories and chains deeper than
 * PATH_MAX (where Node's path-walking `fs.rm` fails with ENAMETOOLONG). GNU `find -execdir chmod u+rwx` (directories
 * lacking it only, never through a symlink) and `rm -rf --one-file-system` walk openat-relative, so depth does not
 * matter. Refuses relative paths and `/`; a missing path is fine.
 */
export async function removeTree(path: string): Promise<void> {
  if (!isAbsolute(path) || resolve(path) === "/") throw new CleanupError(`refusing to remove ${JSON.stringify(path)}`);
  let stat;
  try {
    stat = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new CleanupError(`cannot inspect ${path}`, { cause: error });
  }
  try {
    if (!stat.isDirectory()) {
      await rm(path, { force: true });
      return;
    }
    await run("find", [path, "-type", "d", "!", "-perm", "-u=rwx", "-execdir", "chmod", "u+rwx", "{}", ";"]);
    const removed = await run("rm", ["-rf", "--one-file-system", "--", path]);
    if (removed.code !== 0) throw new Error(`rm exited ${String(removed.code)}: ${removed.stderr.slice(0, 1000)}`);
  } catch (error) {
    throw new CleanupError(`cannot remove ${path}: ${(error as Error).message}`, { cause: error });
  }
}
