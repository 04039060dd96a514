import * as fs from "node:fs";
import { open, readFile, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import stringify from "fast-json-stable-stringify";
import { DurableFsError, errnoOf, withErrno } from "./errors.js";
import { fsyncDirectory } from "./fsync.js";

/** An append-only JSONL log: one canonical JSON line per value, fsynced before `append` resolves. */
export interface JsonlLog {
  readonly path: string;
  /**
   * Appends one value as one line, after every earlier append, and resolves once the line is fsynced. A failed
   * append rejects that call only; later appends still get their own attempt.
   * @throws {DurableFsError} DURABLE_FS_NOT_ONE_LINE, DURABLE_FS_WRITE_FAILED (also after close)
   */
  append(value: unknown): Promise<void>;
  /** Waits for pending appends and closes the file. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link openJsonlLog}. */
export interface OpenJsonlLogOptions {
  /** Applied to each serialised line before it is written (credential redaction); must keep it one line. */
  readonly transform?: (line: string) => string;
  /** Mode of a newly created log; default 0o600. */
  readonly mode?: number;
}

/**
 * Opens (or creates, then fsyncs its directory so the log itself survives a crash) an append-only log with
 * O_APPEND, so each line lands as one write at the end even beside another writer. Values are serialised as canonical
 * JSON (fast-json-stable-stringify); a line is written whole or the append fails (short writes are refused), and a
 * crash can at worst tear the last line, which {@link readJsonl} reports. Trusts the directory to be the caller's.
 * @throws {DurableFsError} DURABLE_FS_WRITE_FAILED when the log cannot be opened (the errno code is in the message).
 */
export async function openJsonlLog(path: string, options: OpenJsonlLogOptions = {}): Promise<JsonlLog> {
  let handle: FileHandle;
  try {
    try {
      handle = await open(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_EXCL, options.mode ?? 0o600);
      try {
        await fsyncDirectory(dirname(path));
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error;
      handle = await open(path, fs.constants.O_WRONLY | fs.constants.O_APPEND);
    }
  } catch (cause) {
    throw new DurableFsError("DURABLE_FS_WRITE_FAILED", `cannot open ${path} for appending (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
  }
  const transform = options.transform ?? ((line: string): string => line);
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    path,
    append(value) {
      if (closed) return Promise.reject(new DurableFsError("DURABLE_FS_WRITE_FAILED", `${path} is closed`));
      const line = transform(stringify(value));
      if (line.includes("\n") || line.includes("\r")) return Promise.reject(new DurableFsError("DURABLE_FS_NOT_ONE_LINE", `a line of ${path} must not contain a line break`));
      const bytes = Buffer.from(`${line}\n`, "utf8");
      const next = queue.then(async () => {
        try {
          const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
          if (bytesWritten !== bytes.length) throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
          await handle.sync();
        } catch (cause) {
          throw new DurableFsError("DURABLE_FS_WRITE_FAILED", `cannot append to ${path} (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await handle.close();
    },
  };
}

/** A JSONL log read back: the parsed complete lines, and the unterminated last line (a crash mid-append) if any. */
export interface JsonlContents {
  readonly values: readonly unknown[];
  /** The bytes after the last newline, as text; null when the log ends with a newline (or is empty). */
  readonly tornTail: string | null;
}

/**
 * Reads a JSONL log. Every complete line must be JSON (anything else is damage, not a crash, and throws naming the
 * line); an unterminated last line is returned as `tornTail` for the caller to judge, never silently dropped.
 * @throws {DurableFsError} DURABLE_FS_READ_FAILED, DURABLE_FS_JSONL_CORRUPT (with `line`)
 */
export async function readJsonl(path: string): Promise<JsonlContents> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new DurableFsError("DURABLE_FS_READ_FAILED", `cannot read ${path} (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
  }
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  const values = lines.map((line, index) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (cause) {
      throw new DurableFsError("DURABLE_FS_JSONL_CORRUPT", `${path} line ${index + 1} is not JSON`, { cause, line: index + 1 });
    }
  });
  return { values, tornTail: tail === "" ? null : tail };
}

/**
 * Drops a torn last line (the bytes after the final newline a killed writer left) from the JSONL log at `path`:
 * fsyncs the file, truncates exactly those bytes, fsyncs again, so no complete line is ever lost. Returns the dropped
 * text, or null when the log ends with a newline, is empty or does not exist. Trusts the directory.
 * @throws {DurableFsError} DURABLE_FS_WRITE_FAILED when the log cannot be read or truncated.
 */
export async function dropTornTail(path: string): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
  } catch (cause) {
    if (errnoOf(cause) === "ENOENT") return null;
    throw new DurableFsError("DURABLE_FS_WRITE_FAILED", `cannot open ${path} to repair it (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
  }
  try {
    const bytes = await handle.readFile();
    const keep = bytes.lastIndexOf(0x0a) + 1;
    if (keep === bytes.length) return null;
    await handle.sync();
    await handle.truncate(keep);
    await handle.sync();
    return bytes.subarray(keep).toString("utf8");
  } catch (cause) {
    throw new DurableFsError("DURABLE_FS_WRITE_FAILED", `cannot drop the torn last line of ${path} (${errnoOf(cause)})`, { cause, ...withErrno(cause) });
  } finally {
    await handle.close();
  }
}
