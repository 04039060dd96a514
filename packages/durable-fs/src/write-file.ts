import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { DurableFsError, errnoOf, withErrno } from "./errors.js";
import { fsyncDirectory, fsyncDirectorySync } from "./fsync.js";

/** Options of the durable writes. */
export interface DurableWriteOptions {
  /** The file's mode, applied exactly (fchmod after create, so the umask cannot narrow it); default 0o600. */
  readonly mode?: number;
  /**
   * fsync the directory afterwards (default true), so the new name is durable too. False only for a caller that
   * fsyncs the directory itself once after many files.
   */
  readonly syncDirectory?: boolean;
}

const CREATE_EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

function failure(what: string, path: string, cause: unknown): DurableFsError {
  if (errnoOf(cause) === "EEXIST") return new DurableFsError("DURABLE_FS_EXISTS", `${path} already exists`, { cause });
  return new DurableFsError("DURABLE_FS_WRITE_FAILED", `cannot ${what} ${path} (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
}

async function createExclusive(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const handle = await open(path, CREATE_EXCLUSIVE, mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    // A partial file must not outlive a failed write or fsync.
    await rm(path, { force: true }).catch(() => undefined);
    throw error;
  }
  await handle.close();
}

/**
 * Creates `path` and writes it durably: O_EXCL + O_NOFOLLOW (never replaces, never follows a planted link), exact
 * mode, fsync, then the directory fsync. A failed write leaves no file. Trusts the directory.
 * @throws {DurableFsError} DURABLE_FS_EXISTS when the name is taken, DURABLE_FS_WRITE_FAILED otherwise.
 */
export async function writeFileExclusive(path: string, data: string | Uint8Array, options: DurableWriteOptions = {}): Promise<void> {
  try {
    await createExclusive(path, data, options.mode ?? 0o600);
    if (options.syncDirectory ?? true) await fsyncDirectory(dirname(path));
  } catch (cause) {
    throw failure("create", path, cause);
  }
}

/**
 * Replaces `path` atomically: a temp file beside it (exclusive, exact mode, fsynced), renamed over `path`, then the
 * directory fsynced. Readers see the old bytes or the new bytes, never a mix; a failure removes the temp file and
 * leaves `path` as it was. Trusts the directory (callers check it is not a planted link).
 * @throws {DurableFsError} DURABLE_FS_WRITE_FAILED
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: DurableWriteOptions = {}): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  try {
    await createExclusive(temp, data, options.mode ?? 0o600);
    await rename(temp, path);
    if (options.syncDirectory ?? true) await fsyncDirectory(dirname(path));
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw failure("write", path, cause);
  }
}

/**
 * {@link writeFileExclusive} for code that must not yield (a transaction running while signals are held). Throws
 * the filesystem error itself (an `EEXIST` included), so an injected failure and a real one look alike to the caller.
 */
export function writeFileExclusiveSync(path: string, data: Uint8Array, options: DurableWriteOptions = {}): void {
  const mode = options.mode ?? 0o600;
  const fd = fs.openSync(path, CREATE_EXCLUSIVE, mode);
  let ok = false;
  try {
    fs.writeFileSync(fd, data);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
    ok = true;
  } finally {
    fs.closeSync(fd);
    if (!ok) fs.rmSync(path, { force: true });
  }
  if (options.syncDirectory ?? true) fsyncDirectorySync(dirname(path));
}
