import { chmod, lstat, readdir, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { CleanupError } from "./errors.js";

/**
 * Remove a cell or template tree an agent may have left with 0555 directories: restore owner rwx on every
 * real directory (never through a symlink), then delete. Refuses relative paths and `/`; a missing path is fine.
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
    if (stat.isDirectory()) await restoreOwnerWrite(path, stat.mode);
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  } catch (error) {
    throw new CleanupError(`cannot remove ${path}: ${(error as Error).message}`, { cause: error });
  }
}

async function restoreOwnerWrite(dir: string, mode: number): Promise<void> {
  // Without search+write on a directory its entries cannot be listed or unlinked by a non-root owner.
  if ((mode & 0o700) !== 0o700) await chmod(dir, (mode & 0o7777) | 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const child = join(dir, entry.name);
    const childStat = await lstat(child);
    if (childStat.isDirectory()) await restoreOwnerWrite(child, childStat.mode);
  }
}
