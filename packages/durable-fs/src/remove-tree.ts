import { spawn } from "node:child_process";
import { lstat, readFile, realpath, rm } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { DurableFsError, errnoOf, withErrno } from "./errors.js";

// Fixed tool locations and a PATH without relative entries (find's -execdir refuses to run otherwise).
const TOOL_ENV = { PATH: "/usr/bin:/bin", LC_ALL: "C" };

function run(command: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env: TOOL_ENV, stdio: ["ignore", "ignore", "pipe"], shell: false });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stderr: stderr.trim() }));
  });
}

/** `\040`-style octal escapes of /proc/self/mountinfo's path fields (space, tab, newline, backslash). */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/gu, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Whether any mount point lies strictly inside `path`; true when the mount table cannot be read (never guess "none"). */
async function holdsMountPoint(path: string): Promise<boolean> {
  let table: string;
  let real: string;
  try {
    table = await readFile("/proc/self/mountinfo", "utf8");
    // The table names mount points by their real paths; `path`'s parents may be links (a /tmp that is one).
    real = await realpath(path);
  } catch {
    return true;
  }
  const prefix = real.endsWith("/") ? real : `${real}/`;
  return table.split("\n").some((line) => {
    const mountPoint = line.split(" ")[4];
    return mountPoint !== undefined && unescapeMountPath(mountPoint).startsWith(prefix);
  });
}

/**
 * Removes a tree an agent may have left hostile: directories 0555 or 0000 (a non-root owner cannot list or unlink
 * inside them) and chains deeper than PATH_MAX (Node's fs.rm, which walks by absolute path, fails with
 * ENAMETOOLONG). Node's fs.rm goes first when no mount point lies inside the tree; what it leaves, GNU find
 * (`-execdir chmod u+rwx`, directories only and only those lacking it, never through a symlink, never a file: a file's
 * mode may be shared through a hard link) and `rm -rf --one-file-system` remove, walking with openat-relative
 * descriptors, so depth does not matter. Refuses relative paths and `/`; a missing path is fine.
 * @throws {DurableFsError} DURABLE_FS_REMOVE_FAILED when refused or when anything is left behind.
 */
export async function removeTree(path: string): Promise<void> {
  if (!isAbsolute(path) || resolve(path) === "/") throw new DurableFsError("DURABLE_FS_REMOVE_FAILED", `refusing to remove ${JSON.stringify(path)}`);
  let stat;
  try {
    stat = await lstat(path);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return;
    throw new DurableFsError("DURABLE_FS_REMOVE_FAILED", `cannot inspect ${path} (${errnoOf(error)})`, { cause: error, ...withErrno(error) });
  }
  try {
    if (!stat.isDirectory()) {
      await rm(path, { force: true });
      return;
    }
    // The common case in-process (two child processes cost ~8 ms a tree, and a cell removes about ten): fs.rm never
    // follows a link and does what `rm -rf` does. Node 20's stops at a mount point (rmdir says EBUSY before it would
    // descend), but newer Nodes walk children first, so a tree holding a mount goes to rm --one-file-system. Whatever
    // fs.rm could not remove (a locked directory, a chain deeper than PATH_MAX) is then removed, or reported, below.
    if (!(await holdsMountPoint(path))) {
      try {
        await rm(path, { recursive: true, force: true });
        return;
      } catch {
        // Fall through to find + rm with whatever is left.
      }
    }
    // find's own status is not decisive: a directory it could not unlock makes rm fail, and rm's message says which.
    await run("find", [path, "-type", "d", "!", "-perm", "-u=rwx", "-execdir", "chmod", "u+rwx", "{}", ";"]);
    const removed = await run("rm", ["-rf", "--one-file-system", "--", path]);
    if (removed.code !== 0) throw new Error(`rm exited ${String(removed.code)}: ${removed.stderr.slice(0, 1000)}`);
  } catch (error) {
    throw new DurableFsError("DURABLE_FS_REMOVE_FAILED", `cannot remove ${path}: ${(error as Error).message}`, { cause: error });
  }
}
