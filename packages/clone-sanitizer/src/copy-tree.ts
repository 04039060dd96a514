import { constants } from "node:fs";
import { chmod, copyFile, lstat, lutimes, mkdir, readdir, readlink, symlink } from "node:fs/promises";
import { join } from "node:path";
import { CopyFailedError } from "./errors.js";

/** Bounds of a buffered copy; exceeding any of them aborts the copy. */
export interface CopyLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** Generous bounds for copying a whole checkout when `cp` is unavailable. */
export const DEFAULT_TREE_COPY_LIMITS: CopyLimits = { maxEntries: 2_000_000, maxBytes: 64 * 1024 ** 3 };

/**
 * Copy `src` into the existing empty directory `dest`, preserving modes, mtimes and symlinks verbatim, using a
 * reflink when the filesystem offers one. Refuses sockets, FIFOs and devices; checks `signal` between entries.
 */
export async function copyTree(
  src: string,
  dest: string,
  limits: CopyLimits = DEFAULT_TREE_COPY_LIMITS,
  signal?: AbortSignal,
): Promise<void> {
  const budget = { entries: 0, bytes: 0 };
  const rootStat = await lstat(src);
  if (!rootStat.isDirectory()) throw new CopyFailedError("SANITIZER_COPY_FAILED", `${src} is not a real directory`);
  await copyChildren(src, dest, limits, budget, signal);
  await chmod(dest, rootStat.mode & 0o7777);
  await lutimes(dest, rootStat.atime, rootStat.mtime);
}

async function copyChildren(
  src: string,
  dest: string,
  limits: CopyLimits,
  budget: { entries: number; bytes: number },
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const name of await readdir(src)) {
    if (signal?.aborted === true) throw new CopyFailedError("SANITIZER_COPY_CANCELLED", `copy of ${src} cancelled`);
    const from = join(src, name);
    const to = join(dest, name);
    const stat = await lstat(from);
    budget.entries += 1;
    if (budget.entries > limits.maxEntries) {
      throw new CopyFailedError("SANITIZER_COPY_LIMIT", `more than ${limits.maxEntries} entries under ${src}`);
    }
    if (stat.isDirectory()) {
      await mkdir(to, { mode: 0o700 });
      await copyChildren(from, to, limits, budget, signal);
      // Modes are applied after the children so a read-only source directory can still be filled.
      await chmod(to, stat.mode & 0o7777);
      await lutimes(to, stat.atime, stat.mtime);
    } else if (stat.isFile()) {
      budget.bytes += stat.size;
      if (budget.bytes > limits.maxBytes) {
        throw new CopyFailedError("SANITIZER_COPY_LIMIT", `more than ${limits.maxBytes} bytes under ${src}`);
      }
      await copyFile(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      await chmod(to, stat.mode & 0o7777);
      await lutimes(to, stat.atime, stat.mtime);
    } else if (stat.isSymbolicLink()) {
      await symlink(await readlink(from), to);
    } else {
      throw new CopyFailedError("SANITIZER_COPY_FAILED", `${from} is not a file, directory or symlink`);
    }
  }
}
