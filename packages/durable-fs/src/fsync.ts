import * as fs from "node:fs";
import { open } from "node:fs/promises";

/**
 * fsyncs a directory, so a create, rename or unlink inside it survives a crash. Trusts `path` to be a directory the
 * caller owns; throws the filesystem error as is.
 */
export async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** {@link fsyncDirectory} for code that must not yield (a transaction running while signals are held). */
export function fsyncDirectorySync(path: string): void {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
