import type { Dirent } from "node:fs";
import { constants } from "node:fs";
import { open, opendir, readdir, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { DurableFsError, errnoCode, withErrno } from "./errors.js";

/** What a no-follow open must find at the end of its path. */
export type NoFollowKind = "file" | "directory";

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO at the end must not hang the reader; the fstat below then refuses it.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// A link met on the way (ELOOP under O_NOFOLLOW), or a non-directory where a directory must be.
const REFUSED = new Set(["ELOOP", "ENOTDIR", "EMLINK"]);

function splitRelative(relativePath: string): string[] {
  if (relativePath === "") return [];
  const parts = relativePath.split("/");
  if (relativePath.startsWith("/") || parts.some((part) => part === "" || part === "." || part === "..")) {
    throw new DurableFsError("DURABLE_FS_NOT_FOLLOWED", `${JSON.stringify(relativePath)} is not a plain relative path`);
  }
  return parts;
}

// A descriptor's own directory entry: the path stays a few bytes long at any depth, and resolves to the opened inode,
// never to whatever now sits at the name the descriptor was opened by.
const viaDescriptor = (handle: FileHandle, name?: string): string => (name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`);

async function openStep(path: string, logical: string, flags: number): Promise<FileHandle> {
  try {
    return await open(path, flags);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== undefined && REFUSED.has(code)) throw new DurableFsError("DURABLE_FS_NOT_FOLLOWED", `${logical} is a link or not a directory (${code})`, { cause: error, errno: code, path: logical });
    throw new DurableFsError("DURABLE_FS_READ_FAILED", `cannot open ${logical} (${code ?? "unknown error"})`, { cause: error, ...withErrno(error), path: logical });
  }
}

/**
 * Opens `root/relativePath` one component at a time, each with O_NOFOLLOW relative to the directory opened before it
 * (through its /proc/self/fd entry), so no link anywhere below the root is followed, a directory swapped for a link
 * mid-walk is refused, and depth past PATH_MAX does not matter. Trusts `root` itself (the caller's own directory; its
 * last component is opened no-follow too); refuses `..`, `.`, empty and absolute parts. The end must be a directory
 * or a regular file as asked (a FIFO, device or socket is refused without blocking).
 * @throws {DurableFsError} DURABLE_FS_NOT_FOLLOWED (a link, a non-directory on the way, the wrong kind at the end) or
 *   DURABLE_FS_READ_FAILED (any other errno), each with `errno` and the logical `path`.
 */
export async function openUnderRoot(root: string, relativePath: string, kind: NoFollowKind): Promise<FileHandle> {
  const parts = splitRelative(relativePath);
  let current = await openStep(root, root, DIRECTORY_FLAGS);
  let logical = root;
  try {
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      logical = join(logical, part);
      const next = await openStep(viaDescriptor(current, part), logical, last && kind === "file" ? FILE_FLAGS : DIRECTORY_FLAGS);
      await current.close();
      current = next;
    }
    if (kind === "file") {
      const stat = await current.stat();
      if (!stat.isFile()) throw new DurableFsError("DURABLE_FS_NOT_FOLLOWED", `${logical} is not a regular file`, { path: logical });
    }
    return current;
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The entries of the directory `root/relativePath` (`""`: the root), reached as {@link openUnderRoot} does and listed
 * through the opened descriptor, sorted by name in code-unit order. Entry kinds are lstat-like (a link is a link).
 * With `maxEntries`, a directory holding more is refused after reading one entry past the bound, so a directory of
 * millions of names never costs more than the bound in memory.
 * @throws {DurableFsError} as openUnderRoot; DURABLE_FS_TOO_LARGE when the directory holds more than `maxEntries`.
 */
export async function listUnderRoot(root: string, relativePath: string, maxEntries?: number): Promise<Dirent[]> {
  const logical = join(root, relativePath);
  const handle = await openUnderRoot(root, relativePath, "directory");
  let entries: Dirent[];
  try {
    entries = maxEntries === undefined ? await readdir(viaDescriptor(handle), { withFileTypes: true }) : await readBounded(viaDescriptor(handle), maxEntries);
  } catch (error) {
    throw new DurableFsError("DURABLE_FS_READ_FAILED", `cannot list ${logical} (${errnoCode(error) ?? "unknown error"})`, { cause: error, ...withErrno(error), path: logical });
  } finally {
    await handle.close();
  }
  if (entries.length > (maxEntries ?? Number.POSITIVE_INFINITY)) throw new DurableFsError("DURABLE_FS_TOO_LARGE", `${logical} holds more than ${maxEntries} entries`, { path: logical });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// Stops one entry past the bound: enough to know the directory is over it.
async function readBounded(path: string, maxEntries: number): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  const dir = await opendir(path);
  try {
    for (let entry = await dir.read(); entry !== null; entry = await dir.read()) {
      entries.push(entry);
      if (entries.length > maxEntries) break;
    }
  } finally {
    await dir.close();
  }
  return entries;
}

/** A regular file read without following links, with what fstat said of the inode that was read. */
export interface NoFollowFile {
  readonly bytes: Buffer;
  /** Hard links to the inode: more than 1 means the bytes are shared with a path elsewhere. */
  readonly nlink: number;
  readonly size: number;
}

/**
 * Reads the regular file `root/relativePath` as {@link openUnderRoot} reaches it, at most `maxBytes`: a larger file
 * (by fstat) is refused rather than truncated, and so is one whose size changes while it is read.
 * @throws {DurableFsError} as openUnderRoot; DURABLE_FS_TOO_LARGE when the file exceeds `maxBytes` or changes size.
 */
export async function readFileUnderRoot(root: string, relativePath: string, maxBytes: number): Promise<NoFollowFile> {
  const logical = join(root, relativePath);
  const handle = await openUnderRoot(root, relativePath, "file");
  try {
    const stat = await handle.stat();
    if (stat.size > maxBytes) throw new DurableFsError("DURABLE_FS_TOO_LARGE", `${logical} is larger than ${maxBytes} bytes`, { path: logical });
    // One byte past the bound catches growth after fstat instead of truncating it.
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled !== stat.size) throw new DurableFsError("DURABLE_FS_TOO_LARGE", `${logical} changed size while it was read`, { path: logical });
    return { bytes: buffer.subarray(0, filled), nlink: stat.nlink, size: filled };
  } finally {
    await handle.close();
  }
}
