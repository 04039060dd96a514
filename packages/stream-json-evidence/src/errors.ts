/** Stable codes for stream-json-evidence failures; callers branch on these, never on messages. */
export type EvidenceErrorCode = `EVIDENCE_${string}`;

/** Base error of stream-json-evidence: thrown for environment failures and bugs, never for expected outcomes. */
export class EvidenceError extends Error {
  readonly code: EvidenceErrorCode;
  constructor(code: EvidenceErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EvidenceError";
    this.code = code;
  }
}

/** True for any EvidenceError, also across module copies (checks the code prefix, not identity). */
export function isEvidenceError(value: unknown): value is EvidenceError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("EVIDENCE_");
}
