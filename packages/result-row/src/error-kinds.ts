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
  // Not in the original's table (reference §4.3 has no kind for these): failures whose root cause is the candidate's
  // own workspace or processes. Before, they surfaced as infra-error / session-error / cleanup-failure, which the
  // report and the gate drop from resolve rates and medians, so a failing candidate could launder its failure into an
  // exclusion (issue 13, class 4). Both are valid, unresolved runs: never excluded, never an execution failure.
  "workspace-invalid",
  "session-aborted-by-agent",
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

/**
 * Kinds that extend the systemic-outage streak (§5.7 `systemic_outage_streak`); every other kind, and no error, resets
 * it. A row with `review_evidence_valid === false` counts as `review-evidence-invalid` whatever its kind.
 */
export const SYSTEMIC_OUTAGE_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["session-error", "infra-error", "cleanup-failure", "review-evidence-invalid"]);

/**
 * Kinds this project added to §4.3, each a candidate-caused failure that counts as a valid unresolved run:
 * `workspace-invalid`: after the session, the harness could not measure or remove what the candidate left in its
 * workspace (`.git` removed or broken so git refuses it, a file git cannot diff, a tree a host read or the cell
 * removal cannot walk); `session-aborted-by-agent`: the session ended inside the agent's own tool call — the CLI
 * killed or interrupted by a signal the harness never sent, or exiting with no outage on the gateway, or the
 * harness's timeout expiring while the tool ran (no model request in flight, no upstream failure).
 */
export const CANDIDATE_FAILURE_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["workspace-invalid", "session-aborted-by-agent"]);

/** True when `value` is one of ERROR_KINDS; trusts nothing about the value. */
export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && (ERROR_KINDS as readonly string[]).includes(value);
}

/** True when a row with this kind is excluded from medians (null: no error, never excluded). */
export function isExcludedErrorKind(kind: ErrorKind | null | undefined): boolean {
  return kind != null && EXCLUDED_ERROR_KINDS.has(kind);
}
