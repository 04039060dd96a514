/** Stable codes for result-row failures; callers branch on these, never on messages. */
export type ResultRowErrorCode = "RESULT_ROW_INVALID";

/**
 * Thrown by buildResultRow when a writer hands it fields that break the row contract: a harness bug, never a
 * measurement. Carries the first offending field (a dotted path).
 */
export class ResultRowError extends Error {
  readonly code: ResultRowErrorCode;
  readonly field: string;
  constructor(code: ResultRowErrorCode, field: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ResultRowError";
    this.code = code;
    this.field = field;
  }
}

/** True for any ResultRowError, also across module copies (checks the code prefix, not identity). */
export function isResultRowError(value: unknown): value is ResultRowError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("RESULT_ROW_");
}
