/** Stable codes for oracle-snapshot failures; callers branch on these, never on messages. */
export type OracleErrorCode = `ORACLE_${string}`;

/** Base error of oracle-snapshot: thrown for environment failures and bugs, never for expected outcomes. */
export class OracleError extends Error {
  readonly code: OracleErrorCode;
  constructor(code: OracleErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "OracleError";
    this.code = code;
  }
}

/** True for any OracleError, also across module copies (checks the code prefix, not identity). */
export function isOracleError(value: unknown): value is OracleError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("ORACLE_");
}
