/** Stable codes for runner failures; callers branch on these, never on messages. */
export type RunnerErrorCode =
  | "RUNNER_BAD_INPUT"
  | "RUNNER_OUTAGE"
  | `RUNNER_${string}`;

/** Base error of runner: thrown for environment failures and bad input found while preparing a sweep. */
export class RunnerError extends Error {
  readonly code: RunnerErrorCode;
  constructor(code: RunnerErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RunnerError";
    this.code = code;
  }
}

/** True for any RunnerError, also across module copies (checks the code prefix, not identity). */
export function isRunnerError(value: unknown): value is RunnerError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("RUNNER_");
}
