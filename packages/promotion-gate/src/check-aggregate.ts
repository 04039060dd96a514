import { EXCLUDED_ERROR_KINDS, EXECUTION_FAILURE_KINDS, REVIEW_METRIC_FIELDS, isErrorKind, type ErrorKind } from "@wfbench/result-row";
import { AggregateInvariantError } from "./errors.js";
import { MEDIAN_FIELDS, type Aggregate } from "./schema.js";

const MEASURED_FIELDS: readonly string[] = [...MEDIAN_FIELDS, "cost_usd", "cli_cost_usd", ...REVIEW_METRIC_FIELDS];

/** An aggregate field that breaks a §5.2 invariant, and the rule it breaks. */
export interface AggregateRefusal {
  readonly field: string;
  readonly message: string;
}

function sumOf(kinds: Readonly<Record<string, number>>, set: ReadonlySet<ErrorKind>): number {
  let total = 0;
  for (const [kind, count] of Object.entries(kinds)) if (isErrorKind(kind) && set.has(kind)) total += count;
  return total;
}

/**
 * Checks the cross-field rules every aggregate() result satisfies by construction (reference §5.2 definitions: valid
 * and excluded rows partition the runs, resolved rows are valid, fresh rows are a subset, a row fails health at most
 * once per class, `error_kinds` counts the rows that carry each §4.3 kind). Returns the first broken rule naming the
 * field, or null. Trusts the field types (AggregateSchema); anything beyond them is checked here.
 */
export function checkAggregate(aggregate: Aggregate): AggregateRefusal | null {
  const a = aggregate;
  const above = (field: string, bound: string): AggregateRefusal => ({ field, message: `must not exceed ${bound}` });
  if (a.runs !== a.valid_runs + a.excluded_runs) return { field: "runs", message: "must equal valid_runs + excluded_runs" };
  if (a.resolved > a.valid_runs) return above("resolved", "valid_runs");
  if (a.fresh_attempts > a.runs) return above("fresh_attempts", "runs");
  if (a.resolved_fresh > a.resolved) return above("resolved_fresh", "resolved");
  if (a.resolved_fresh > a.fresh_attempts) return above("resolved_fresh", "fresh_attempts");
  if (a.execution_failures > a.fresh_attempts) return above("execution_failures", "fresh_attempts");
  if (a.evidence_failures > a.fresh_attempts) return above("evidence_failures", "fresh_attempts");
  // Admissible rows fail neither way, so they are disjoint from either kind of failure.
  if (a.admissible + a.execution_failures > a.fresh_attempts) return above("admissible", "fresh_attempts - execution_failures");
  if (a.admissible + a.evidence_failures > a.fresh_attempts) return above("admissible", "fresh_attempts - evidence_failures");
  if (a.transcripts_missing > a.runs) return above("transcripts_missing", "runs");
  let counted = 0;
  for (const [kind, count] of Object.entries(a.error_kinds)) {
    if (!isErrorKind(kind)) return { field: `error_kinds.${kind}`, message: "is not an error kind of reference §4.3" };
    // A kind is listed only when some row carries it: "contains" means a count above zero (§5.3 skill_attributable).
    if (count < 1) return { field: `error_kinds.${kind}`, message: "must be at least 1 (a kind no row carries is absent)" };
    if (count > a.runs) return above(`error_kinds.${kind}`, "runs");
    counted += count;
  }
  if (counted > a.runs) return above("error_kinds", "runs in total");
  // Rows carrying an excluded kind are excluded; fresh execution failures are rows carrying an execution kind.
  if (sumOf(a.error_kinds, EXCLUDED_ERROR_KINDS) > a.excluded_runs) return { field: "excluded_runs", message: "must count at least every row with an excluded error kind" };
  if (a.execution_failures > sumOf(a.error_kinds, EXECUTION_FAILURE_KINDS)) return above("execution_failures", "the rows carrying an execution-failure kind");
  // Medians of measurements the row contract keeps finite and ≥ 0: a negative or non-finite one would flip or blow up
  // an improvement percentage (a negative incumbent cost reads as a 200% saving).
  for (const field of MEASURED_FIELDS) {
    const value: unknown = (a as Record<string, unknown>)[field];
    if (value === null || value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return { field, message: "must be a finite non-negative number (or null when unmeasured)" };
  }
  return null;
}

/**
 * Throws AggregateInvariantError (PROMOTION_AGGREGATE_INVALID) naming the task, arm and field when the aggregate
 * breaks a §5.2 invariant; the gates call it on both sides of every pair before deciding.
 */
export function assertAggregate(task: string, arm: string, aggregate: Aggregate): void {
  const refusal = checkAggregate(aggregate);
  if (refusal !== null) throw new AggregateInvariantError(task, arm, refusal);
}
