/** Stable codes for promotion-gate failures; callers branch on these, never on messages. */
export type PromotionErrorCode = `PROMOTION_${string}`;

/** Base error of promotion-gate: thrown for environment failures and bugs, never for expected outcomes. */
export class PromotionError extends Error {
  readonly code: PromotionErrorCode;
  constructor(code: PromotionErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PromotionError";
    this.code = code;
  }
}

/** True for any PromotionError, also across module copies (checks the code prefix, not identity). */
export function isPromotionError(value: unknown): value is PromotionError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("PROMOTION_");
}
