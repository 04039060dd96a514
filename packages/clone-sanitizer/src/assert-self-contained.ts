import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { NotSelfContainedError } from "./errors.js";

/**
 * Refuse a checkout whose `.git` is not a real directory, borrows objects through alternates, or shares any
 * object file by hardlink. Trusts only lstat results; follows no symlink.
 */
export async function assertSelfContained(checkout: string): Promise<void> {
  const gitDir = join(checkout, ".git");
  const gitStat = await lstatOrUndefined(gitDir);
  if (gitStat === undefined || !gitStat.isDirectory()) {
    throw new NotSelfContainedError(`${gitDir} is not a real directory`);
  }
  const objects = join(gitDir, "objects");
  const objectsStat = await lstatOrUndefined(objects);
  if (objectsStat === undefined || !objectsStat.isDirectory()) {
    throw new NotSelfContainedError(`${objects} is not a real directory`);
  }
  for (const name of ["alternates", "http-alternates"]) {
    if ((await lstatOrUndefined(join(objects, "info", name))) !== undefined) {
      throw new NotSelfContainedError(`${checkout} borrows objects through objects/info/${name}`);
    }
  }
  await walkObjects(objects);
}

async function walkObjects(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) throw new NotSelfContainedError(`${path} is a symlink inside the object store`);
    if (entry.isDirectory()) {
      await walkObjects(path);
      continue;
    }
    const stat = await lstat(path);
    if (stat.nlink > 1) throw new NotSelfContainedError(`${path} is hardlinked (${stat.nlink} links)`);
  }
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
