import * as fs from "node:fs";
import * as nodePath from "node:path";
import { fsyncDirectorySync, writeFileExclusiveSync } from "@wfbench/durable-fs";
import type { Result } from "./result.js";

/** The file identity and type facts the apply transaction checks. */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mode: number;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  /** Hard links to the inode. */
  readonly nlink: number;
  /** Owner; optional so an injected FsOperations written before it existed still fits (recovery then skips the check). */
  readonly uid?: number;
  readonly kind: "file" | "directory" | "symlink" | "other";
}

/**
 * The synchronous filesystem primitives the apply transaction uses; injectable so tests can fail any single step.
 * Every operation throws on failure (an ENOENT from lstat included).
 */
export interface FsOperations {
  lstat(path: string): FileIdentity;
  realpath(path: string): string;
  readFile(path: string): Buffer;
  /** Creates a new file (never follows or replaces), writes, fsyncs and closes it. */
  writeFileExclusive(path: string, bytes: Uint8Array, mode: number): void;
  link(existingPath: string, newPath: string): void;
  rename(fromPath: string, toPath: string): void;
  unlink(path: string): void;
  fsyncDirectory(path: string): void;
}

function classify(stats: fs.BigIntStats): FileIdentity["kind"] {
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}

/** The real filesystem (node:fs + @wfbench/durable-fs, synchronous, no-follow where Node offers it); trusts nothing read. */
export const nodeFsOperations: FsOperations = {
  lstat(path) {
    const stats = fs.lstatSync(path, { bigint: true });
    return { dev: stats.dev, ino: stats.ino, mode: Number(stats.mode & 0o7777n), size: stats.size, mtimeNs: stats.mtimeNs, nlink: Number(stats.nlink), uid: Number(stats.uid), kind: classify(stats) };
  },
  realpath(path) {
    return fs.realpathSync.native(path);
  },
  readFile(path) {
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  writeFileExclusive(path, bytes, mode) {
    // Exact mode (the destination must keep the original's), no partial file on failure; the transaction fsyncs
    // each directory itself once its files are staged.
    writeFileExclusiveSync(path, bytes, { mode, syncDirectory: false });
  },
  link(existingPath, newPath) {
    fs.linkSync(existingPath, newPath);
  },
  rename(fromPath, toPath) {
    fs.renameSync(fromPath, toPath);
  },
  unlink(path) {
    fs.unlinkSync(path);
  },
  fsyncDirectory(path) {
    fsyncDirectorySync(path);
  },
};

/** Why an ancestor walk stopped: a missing ancestor, one lstat could not read, a symlink, or a non-directory. */
export interface AncestorProblem {
  readonly kind: "missing" | "unavailable" | "symlink" | "not-directory";
  readonly message: string;
}

/**
 * Walks every ancestor of `relative` (a checked posix path) below `root` with lstat and returns their identities, or
 * the first problem: each must be a real directory, never a symlink. Trusts `root` itself; refuses nothing else.
 */
export function walkAncestors(fsOps: FsOperations, root: string, relative: string): Result<FileIdentity[], AncestorProblem> {
  const identities: FileIdentity[] = [];
  let current = root;
  for (const part of relative.split("/").slice(0, -1)) {
    current = nodePath.join(current, part);
    let identity: FileIdentity;
    try {
      identity = fsOps.lstat(current);
    } catch (error) {
      const missing = typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { ok: false, error: { kind: missing ? "missing" : "unavailable", message: `ancestor ${part} is unavailable (${detail})` } };
    }
    if (identity.kind === "symlink") return { ok: false, error: { kind: "symlink", message: `ancestor ${part} must not be a symlink` } };
    if (identity.kind !== "directory") return { ok: false, error: { kind: "not-directory", message: `ancestor ${part} is not a directory` } };
    identities.push(identity);
  }
  return { ok: true, value: identities };
}
