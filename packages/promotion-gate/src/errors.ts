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

/** Final state of an apply transaction that did not end cleanly. */
export type TransactionState = "published" | "rolled-back" | "rollback-incomplete";

/**
 * Thrown when the apply transaction failed after it started writing: PROMOTION_APPLY_ROLLED_BACK (every destination
 * holds its original bytes), PROMOTION_APPLY_ROLLBACK_INCOMPLETE (some do not: see the recovery file) or
 * PROMOTION_APPLY_CLEANUP_INCOMPLETE (published or rolled back, but temporary files remain: see the recovery file).
 */
export class OverlayTransactionError extends PromotionError {
  readonly transactionState: TransactionState;
  readonly recoveryPath: string | null;
  readonly rollbackFailures: readonly string[];
  constructor(
    code: "PROMOTION_APPLY_ROLLED_BACK" | "PROMOTION_APPLY_ROLLBACK_INCOMPLETE" | "PROMOTION_APPLY_CLEANUP_INCOMPLETE",
    message: string,
    details: { transactionState: TransactionState; recoveryPath: string | null; rollbackFailures: readonly string[] },
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "OverlayTransactionError";
    this.transactionState = details.transactionState;
    this.recoveryPath = details.recoveryPath;
    this.rollbackFailures = details.rollbackFailures;
  }
}

/**
 * Thrown by the gates when an aggregate breaks a reference §5.2 invariant (for example `resolved` above `valid_runs`,
 * a count above `runs`, an error kind counted zero times): no sweep produces it, so the gate refuses to decide on it.
 * Names the task, the arm and the offending aggregate field.
 */
export class AggregateInvariantError extends PromotionError {
  readonly task: string;
  readonly arm: string;
  readonly field: string;
  constructor(task: string, arm: string, refusal: { readonly field: string; readonly message: string }) {
    super("PROMOTION_AGGREGATE_INVALID", `results[${JSON.stringify(task)}][${JSON.stringify(arm)}].${refusal.field} ${refusal.message}: no sweep produces this aggregate, so the gate refuses to decide on it`);
    this.name = "AggregateInvariantError";
    this.task = task;
    this.arm = arm;
    this.field = refusal.field;
  }
}
