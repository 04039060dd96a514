/** Stable codes for durable-fs failures; callers branch on these, never on messages. */
export type DurableFsErrorCode =
  /** Opening, writing, fsyncing or renaming failed (disk full, permissions, a missing directory…). */
  | "DURABLE_FS_WRITE_FAILED"
  /** An exclusive create found the name taken. */
  | "DURABLE_FS_EXISTS"
  /** A line handed to a JSONL log would not be exactly one line. */
  | "DURABLE_FS_NOT_ONE_LINE"
  /** A log could not be read. */
  | "DURABLE_FS_READ_FAILED"
  /** A complete line of a JSONL log is not JSON (the log is damaged beyond a torn last line). */
  | "DURABLE_FS_JSONL_CORRUPT"
  /** A tree removal was refused (relative path, `/`) or failed. */
  | "DURABLE_FS_REMOVE_FAILED"
  /** A no-follow read under a root met a link, a non-directory on the way, or an entry of the wrong kind. */
  | "DURABLE_FS_NOT_FOLLOWED"
  /** A bounded read found the file over its bound or changing size while it was read, or a bounded listing found more entries. */
  | "DURABLE_FS_TOO_LARGE";

/** Base error of durable-fs: thrown for filesystem failures, with the errno code (when there is one) in the message. */
export class DurableFsError extends Error {
  readonly code: DurableFsErrorCode;
  /** The 1-based line of a corrupt JSONL log, when the error is about one line. */
  readonly line: number | undefined;
  /** The errno code of the underlying filesystem error ("ENOENT", "ENOSPC"), when there is one. */
  readonly errno: string | undefined;
  /** The path the error is about, as the caller named it (never a /proc/self/fd alias), when there is one. */
  readonly path: string | undefined;
  constructor(code: DurableFsErrorCode, message: string, options?: ErrorOptions & { line?: number; errno?: string; path?: string }) {
    super(message, options);
    this.name = "DurableFsError";
    this.code = code;
    this.line = options?.line;
    this.errno = options?.errno;
    this.path = options?.path;
  }
}

/** True for any DurableFsError, also across module copies (checks the code prefix, not identity). */
export function isDurableFsError(value: unknown): value is DurableFsError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("DURABLE_FS_");
}

/** The errno code of a Node filesystem error ("ENOSPC"), or undefined. */
export function errnoCode(error: unknown): string | undefined {
  const code: unknown = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The errno code of a Node filesystem error ("ENOSPC") for a message, or "unknown error". */
export function errnoOf(error: unknown): string {
  return errnoCode(error) ?? "unknown error";
}

/** `{ errno }` for a DurableFsError's options when the cause has one (exactOptionalPropertyTypes forbids undefined). */
export function withErrno(error: unknown): { errno?: string } {
  const code = errnoCode(error);
  return code === undefined ? {} : { errno: code };
}
