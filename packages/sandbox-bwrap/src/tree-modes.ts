import { chmod, lstat, readdir } from "node:fs/promises";
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
