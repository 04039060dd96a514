import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/**
 * Opens a regular file of a cell for reading on the host, or null when the path no longer names the file that was
 * inspected (`expected` device and inode, from an lstat walk). O_NOFOLLOW: a link swapped in is refused; O_NONBLOCK: a
 * FIFO swapped in cannot hang the harness. Trusts the caller to have walked the parent components without links.
 */
export async function openWorkspaceFile(path: string, expected: { readonly dev: number; readonly ino: number }): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") return null;
    throw error;
  }
  const stat = await handle.stat();
  if (stat.isFile() && stat.dev === expected.dev && stat.ino === expected.ino) return handle;
  await handle.close();
  return null;
}
