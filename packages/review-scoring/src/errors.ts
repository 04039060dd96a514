/** Stable codes for review-scoring failures; callers branch on these, never on messages. */
export type ReviewErrorCode = `REVIEW_${string}`;

/** Base error of review-scoring: thrown for environment failures and bugs, never for expected outcomes. */
export class ReviewError extends Error {
  readonly code: ReviewErrorCode;
  constructor(code: ReviewErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ReviewError";
    this.code = code;
  }
}

/** True for any ReviewError, also across module copies (checks the code prefix, not identity). */
export function isReviewError(value: unknown): value is ReviewError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("REVIEW_");
}
