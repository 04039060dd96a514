/** Stable codes for evolve-loop failures; callers branch on these, never on messages. */
export type EvolveLoopErrorCode =
  | "EVOLVE_LOOP_BAD_UPTIME"
  | "EVOLVE_LOOP_BAD_BUDGET"
  /** The suite, an overlay, the repo root or a promotion file is unusable; the message names it and the fix. */
  | "EVOLVE_LOOP_BAD_INPUT"
  /** A destination's live bytes differ from its committed base (or the canonical target is not committed). */
  | "EVOLVE_LOOP_TARGET_DRIFT"
  /** A frozen overlay does not re-read or re-digest to its source. */
  | "EVOLVE_LOOP_FREEZE_FAILED"
  /** The runner or proposer child could not be started or ended abnormally. */
  | "EVOLVE_LOOP_CHILD_FAILED";

/** Error of the evolve loop: thrown for environment failures and bugs, never for expected outcomes. */
export class EvolveLoopError extends Error {
  readonly code: EvolveLoopErrorCode;
  constructor(code: EvolveLoopErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EvolveLoopError";
    this.code = code;
  }
}

/** True for any EvolveLoopError, also across module copies (checks the code prefix, not identity). */
export function isEvolveLoopError(value: unknown): value is EvolveLoopError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("EVOLVE_LOOP_");
}
