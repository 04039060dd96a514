import { mkdir, readdir } from "node:fs/promises";
import { SweepError } from "./errors.js";

// What the operator can fix by choosing another path; anything else (EIO, ENOSPC…) is the machine's and propagates.
const OPERATOR_PATH_ERRORS = new Set(["EEXIST", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENAMETOOLONG", "ELOOP"]);

/**
 * Creates `out` (and its parents) or accepts it when it is an existing empty directory. Refuses, as SWEEP_BAD_INPUT
 * naming `what` (the flag or role the path came from), a non-empty directory and a path that cannot be a directory
 * (a file on the way, no permission, a read-only file system); other file-system failures are thrown as they are.
 */
export async function createEmptyOutDir(out: string, what: string): Promise<void> {
  let entries: string[];
  try {
    await mkdir(out, { recursive: true });
    entries = await readdir(out);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (!OPERATOR_PATH_ERRORS.has(code)) throw error;
    const why = code === "EEXIST" || code === "ENOTDIR" ? "is a file, or has a file on its way, not a directory" : code === "EACCES" || code === "EPERM" ? "cannot be created or read with this user's permissions" : code === "EROFS" ? "is on a read-only file system" : `cannot be a directory (${code})`;
    throw new SweepError("SWEEP_BAD_INPUT", `${what} ${out} ${why}: pass a new directory you can write`, { cause: error });
  }
  if (entries.length > 0) throw new SweepError("SWEEP_BAD_INPUT", `${what} ${out} is not empty: pass a new directory`);
}
