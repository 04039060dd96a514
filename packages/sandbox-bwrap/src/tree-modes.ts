import { chmod, lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

interface Entry {
  path: string;
  mode: number;
  isDir: boolean;
}

async function walk(root: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const visit = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    // Symlinks are never followed: a link out of the tree must not get its target's modes changed.
    if (stats.isSymbolicLink()) return;
    out.push({ path, mode: stats.mode & 0o7777, isDir: stats.isDirectory() });
    if (stats.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return out;
}

/**
 * Emulates a read-only tree: every directory becomes 0500 and files lose every write bit; returns a function
 * restoring the original modes. NOT a security boundary: the process can chmod them back.
 */
export async function lockTreeReadOnly(root: string): Promise<() => Promise<void>> {
  const entries = await walk(root);
  // Children first, so a locked parent never blocks the walk (matters for non-root callers).
  for (const entry of [...entries].reverse()) await chmod(entry.path, entry.isDir ? 0o500 : entry.mode & ~0o222);
  return async () => {
    for (const entry of entries) await chmod(entry.path, entry.mode).catch(() => undefined);
  };
}

/**
 * Removes a tree even when an agent left it unwritable (e.g. a copy of a locked clone with 0555 directories):
 * restores owner rwx on directories and w on files first. Missing trees are fine.
 */
export async function forceRemoveTree(root: string): Promise<void> {
  const unlock = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return;
    if (stats.isDirectory()) {
      // Unlock before descending: a 0000 directory could not be listed otherwise.
      await chmod(path, (stats.mode & 0o7777) | 0o700);
      for (const name of await readdir(path)) await unlock(join(path, name));
    } else await chmod(path, (stats.mode & 0o7777) | 0o200);
  };
  try {
    await unlock(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  await rm(root, { recursive: true, force: true });
}
