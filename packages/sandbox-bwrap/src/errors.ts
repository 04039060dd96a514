/** Stable codes for sandbox-bwrap failures; callers branch on these, never on messages. */
export type SandboxErrorCode = `SANDBOX_${string}`;

/** Base error of sandbox-bwrap: thrown for environment failures and bugs, never for expected outcomes. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SandboxError";
    this.code = code;
  }
}

/** True for any SandboxError, also across module copies (checks the code prefix, not identity). */
export function isSandboxError(value: unknown): value is SandboxError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SANDBOX_");
}
