/** Stable codes for sweep failures; callers branch on these, never on messages. */
export type SweepErrorCode =
  | "SWEEP_BAD_INPUT"
  | "SWEEP_TEMPLATE_FAILED"
  | "SWEEP_UPSTREAM_KEY_REFUSED"
  | "SWEEP_UPSTREAM_MODEL_UNKNOWN"
  | "SWEEP_UPSTREAM_UNREACHABLE"
  | "SWEEP_UPSTREAM_FAILED"
  | "SWEEP_CELL_FAILED"
  | "SWEEP_REPORT_FAILED"
  | "SWEEP_PROMOTION_FAILED"
  | `SWEEP_${string}`;

/** Base error of sweep: bad input found before paid work (SWEEP_BAD_INPUT) and sweep-level failures; never an expected cell outcome. */
export class SweepError extends Error {
  readonly code: SweepErrorCode;
  constructor(code: SweepErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SweepError";
    this.code = code;
  }
}

/** True for any SweepError, also across module copies (checks the code prefix, not identity). */
export function isSweepError(value: unknown): value is SweepError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SWEEP_");
}
