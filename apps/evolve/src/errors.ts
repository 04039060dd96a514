/** Stable codes for evolve failures; callers branch on these, never on messages. */
export type EvolveErrorCode = `EVOLVE_${string}`;

/** Base error of evolve: thrown for environment failures and bugs, never for expected outcomes. */
export class EvolveError extends Error {
  readonly code: EvolveErrorCode;
  constructor(code: EvolveErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EvolveError";
    this.code = code;
  }
}

/** True for any EvolveError, also across module copies (checks the code prefix, not identity). */
export function isEvolveError(value: unknown): value is EvolveError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("EVOLVE_");
}
