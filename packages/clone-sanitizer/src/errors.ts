/** Stable codes for clone-sanitizer failures; callers branch on these, never on messages. */
export type SanitizerErrorCode = `SANITIZER_${string}`;

/** Base error of clone-sanitizer: thrown for environment failures and bugs, never for expected outcomes. */
export class SanitizerError extends Error {
  readonly code: SanitizerErrorCode;
  constructor(code: SanitizerErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SanitizerError";
    this.code = code;
  }
}

/** True for any SanitizerError, also across module copies (checks the code prefix, not identity). */
export function isSanitizerError(value: unknown): value is SanitizerError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SANITIZER_");
}
