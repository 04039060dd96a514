/** Every error_kind a results row may carry (reference §4.3). */
export const ERROR_KINDS = [
  "session-error",
  "infra-error",
  "cleanup-failure",
  "cancelled",
  "evidence-unverified",
  "review-evidence-invalid",
  "skill-not-invoked",
  "plan-evidence-invalid",
  "implementation-evidence-invalid",
  "verify-failed",
  "oracle-failed",
  "oracle-unavailable",
  "no-work-produced",
] as const;

/** One of ERROR_KINDS. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * Kinds whose rows never enter medians (§5.2 `EXCLUDED_ERROR_KINDS`, the same set as `REUSE_EXCLUDED_ERROR_KINDS`); an
 * arm whose every row carries one has no admissible evidence at all.
 */
export const EXCLUDED_ERROR_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "session-error",
  "infra-error",
  "evidence-unverified",
  "cleanup-failure",
  "review-evidence-invalid",
  "cancelled",
]);

/** Kinds that mean the environment failed to execute the cell (§5.2 `EXECUTION_FAILURE_KINDS`). */
export const EXECUTION_FAILURE_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["session-error", "infra-error", "cleanup-failure", "cancelled"]);

/** Kinds that mean the cell ran but its evidence cannot be trusted (§5.2 `EVIDENCE_FAILURE_KINDS`). */
export const EVIDENCE_FAILURE_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["review-evidence-invalid", "evidence-unverified", "skill-not-invoked"]);

/** True when `value` is one of ERROR_KINDS; trusts nothing about the value. */
export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && (ERROR_KINDS as readonly string[]).includes(value);
}

/** True when a row with this kind is excluded from medians (null: no error, never excluded). */
export function isExcludedErrorKind(kind: ErrorKind | null | undefined): boolean {
  return kind != null && EXCLUDED_ERROR_KINDS.has(kind);
}
