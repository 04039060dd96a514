/** Stable codes for digest refusals; callers branch on these, never on messages. */
export type DigestErrorCode =
  /** A number is NaN or ±Infinity (JSON.parse turns `1e400` into Infinity): JSON, and Python's json.dumps, have none. */
  | "DIGEST_NON_FINITE_NUMBER"
  /** The value nests deeper than canonical JSON can be written without overflowing the stack. */
  | "DIGEST_TOO_DEEP"
  /** The value contains itself, so it has no JSON text. */
  | "DIGEST_CYCLE"
  /** The value holds something JSON.stringify throws on (a bigint). */
  | "DIGEST_NOT_JSON";

/** Thrown by canonicalJson/digestJson for a value that has no canonical JSON text; `path` leads to the offending part. */
export class DigestError extends Error {
  readonly code: DigestErrorCode;
  /** Keys from the root to the offending part (at most the first 16). */
  readonly path: readonly (string | number)[];
  constructor(code: DigestErrorCode, message: string, path: readonly (string | number)[], options?: ErrorOptions) {
    super(message, options);
    this.name = "DigestError";
    this.code = code;
    this.path = path;
  }
}

/** True for any DigestError, also across module copies (checks the code prefix, not identity). */
export function isDigestError(value: unknown): value is DigestError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("DIGEST_");
}
