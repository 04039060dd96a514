import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from "node:fs";

/** Why a file could not be read as a bounded regular file. */
export type ReadFileIssue =
  | { kind: "missing" }
  | { kind: "symlink" }
  | { kind: "not-regular"; fileType: string }
  | { kind: "too-large"; bytes: number }
  | { kind: "unreadable"; reason: string };

function describeFileType(mode: number): string {
  switch (mode & constants.S_IFMT) {
    case constants.S_IFDIR:
      return "directory";
    case constants.S_IFIFO:
      return "FIFO";
    case constants.S_IFSOCK:
      return "socket";
    case constants.S_IFCHR:
      return "character device";
    case constants.S_IFBLK:
      return "block device";
    default:
      return "non-regular file";
  }
}

function systemReason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node formats "<CODE>: <strerror>, <syscall> '<path>'"; keep the strerror part and the code.
    const match = /^[A-Z0-9_]+: ([^,]+)/.exec(error.message);
    const text = match?.[1] ?? error.message;
    return code === undefined ? text : `${text} (${code})`;
  }
  return String(error);
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}

/**
 * Reads at most `maxBytes` from a regular file at `path`. Never follows a final symlink (O_NOFOLLOW), never blocks
 * on a FIFO (O_NONBLOCK then fstat), and never trusts the size it stat'ed (reads one byte past the cap).
 */
export function readBoundedRegularFile(
  path: string,
  maxBytes: number,
): { ok: true; bytes: Uint8Array } | { ok: false; error: ReadFileIssue } {
  // Classify by lstat before opening: a socket cannot be opened at all (ENXIO) and a device should not be,
  // so only a regular file is ever opened. The fstat below still guards against a swap after this check.
  let before: Stats;
  try {
    before = lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return { ok: false, error: { kind: "missing" } };
    return { ok: false, error: { kind: "unreadable", reason: systemReason(error) } };
  }
  if (before.isSymbolicLink()) return { ok: false, error: { kind: "symlink" } };
  if (!before.isFile()) return { ok: false, error: { kind: "not-regular", fileType: describeFileType(before.mode) } };
  // libuv adds O_CLOEXEC itself, so the descriptor never leaks into a child.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") return { ok: false, error: { kind: "missing" } };
    if (code === "ELOOP") {
      // ELOOP also means a symlink loop in a parent directory; only a final-component link is "symlink".
      try {
        if (lstatSync(path).isSymbolicLink()) return { ok: false, error: { kind: "symlink" } };
      } catch {
        // fall through to the generic reason
      }
    }
    return { ok: false, error: { kind: "unreadable", reason: systemReason(error) } };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, error: { kind: "not-regular", fileType: describeFileType(stat.mode) } };
    if (stat.size > maxBytes) return { ok: false, error: { kind: "too-large", bytes: stat.size } };
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
      if (filled > maxBytes) return { ok: false, error: { kind: "too-large", bytes: filled } };
    }
    return { ok: true, bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, filled) };
  } catch (error) {
    return { ok: false, error: { kind: "unreadable", reason: systemReason(error) } };
  } finally {
    closeSync(fd);
  }
}
