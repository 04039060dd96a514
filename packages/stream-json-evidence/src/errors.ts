/** Stable codes for stream-json-evidence failures; callers branch on these, never on messages. */
export type EvidenceErrorCode = `EVIDENCE_${string}`;

/** Codes of expected refusals returned as values (a stream, a proof or a transcript that cannot be trusted). */
export type EvidenceRejectionCode =
  | "EVIDENCE_CAPTURE_MISSING"
  | "EVIDENCE_OVERSIZE"
  | "EVIDENCE_INVALID_UTF8"
  | "EVIDENCE_MALFORMED_LINE"
  | "EVIDENCE_TRUNCATED_LINE"
  | "EVIDENCE_NON_FINITE_NUMBER"
  | "EVIDENCE_NESTING_TOO_DEEP"
  | "EVIDENCE_NOT_AN_OBJECT"
  | "EVIDENCE_EVENT_WITHOUT_TYPE"
  | "EVIDENCE_EMPTY_STREAM"
  | "EVIDENCE_RESULT_MISSING"
  | "EVIDENCE_RESULT_DUPLICATE"
  | "EVIDENCE_EVENT_AFTER_RESULT"
  | "EVIDENCE_TOOL_USE_ID_INVALID"
  | "EVIDENCE_TOOL_USE_ID_DUPLICATE"
  | "EVIDENCE_TOOL_RESULT_ID_INVALID"
  | "EVIDENCE_TOOL_RESULT_ID_DUPLICATE"
  | "EVIDENCE_TOOL_RESULT_IS_ERROR_INVALID"
  | "EVIDENCE_TOOL_RESULT_OUTSIDE_USER_EVENT"
  | "EVIDENCE_SKILL_RESULT_MISSING"
  | "EVIDENCE_SKILL_RESULT_BEFORE_REQUEST"
  | "EVIDENCE_SKILL_RESULT_CONTRADICTED"
  | "EVIDENCE_REDACTION_KEY_COLLISION"
  | "EVIDENCE_TRANSCRIPT_OVERSIZE";

/** An expected refusal: what was wrong, where (1-based line of the captured stdout, when known). */
export interface EvidenceRejection {
  readonly code: EvidenceRejectionCode;
  readonly message: string;
  readonly line: number | null;
}

/** Either the value or the refusal; expected outcomes never throw. */
export type EvidenceResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: EvidenceRejection };

/** Base error of stream-json-evidence: thrown for environment failures and bugs, never for expected outcomes. */
export class EvidenceError extends Error {
  readonly code: EvidenceErrorCode;
  constructor(code: EvidenceErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EvidenceError";
    this.code = code;
  }
}

/** Thrown when a caller hands in options that break the contract (a bug in the caller, not bad evidence). */
export class EvidenceOptionsError extends EvidenceError {
  constructor(message: string, options?: ErrorOptions) {
    super("EVIDENCE_INVALID_OPTIONS", message, options);
    this.name = "EvidenceOptionsError";
  }
}

/** Thrown when the byte source itself fails while being read (an environment failure, not a verdict on the bytes). */
export class EvidenceSourceError extends EvidenceError {
  constructor(message: string, options?: ErrorOptions) {
    super("EVIDENCE_SOURCE_FAILED", message, options);
    this.name = "EvidenceSourceError";
  }
}

/** Thrown when a transcript artifact cannot be persisted (bad name, existing file, I/O failure). */
export class EvidenceArtifactError extends EvidenceError {
  constructor(
    code: "EVIDENCE_ARTIFACT_NAME_INVALID" | "EVIDENCE_ARTIFACT_EXISTS" | "EVIDENCE_ARTIFACT_WRITE_FAILED",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "EvidenceArtifactError";
  }
}

/** True for any EvidenceError, also across module copies (checks the code prefix, not identity). */
export function isEvidenceError(value: unknown): value is EvidenceError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("EVIDENCE_");
}

/** Builds a refusal value; messages echo at most 200 characters of input so evidence stays bounded. */
export function reject(code: EvidenceRejectionCode, message: string, line: number | null = null): { ok: false; error: EvidenceRejection } {
  return { ok: false, error: { code, message: truncateForMessage(message, 400), line } };
}

/** Shortens text for messages without splitting a surrogate pair. */
export function truncateForMessage(text: string, max = 200): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
