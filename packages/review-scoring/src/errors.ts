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

/** Thrown by scoreReview / matchReviewFindings when handed findings or labels that did not come from the parsers. */
export class ReviewScoreInputError extends ReviewError {
  constructor(message: string, options?: ErrorOptions) {
    super("REVIEW_SCORE_INPUT_INVALID", message, options);
    this.name = "ReviewScoreInputError";
  }
}

/** Thrown when the parser's own output breaks the exported schema: a bug in this package, never bad input. */
export class ReviewInvariantError extends ReviewError {
  constructor(message: string, options?: ErrorOptions) {
    super("REVIEW_INVARIANT_BROKEN", message, options);
    this.name = "ReviewInvariantError";
  }
}
