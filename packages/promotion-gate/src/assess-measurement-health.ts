import { compareCodePoints } from "@wfbench/digest";
import { CANDIDATE_ARMS } from "@wfbench/result-row";
import type { AggregatedResults } from "./schema.js";

/** §5.8 status of one arm over a sweep's fresh attempts. */
export type MeasurementHealthStatus = "UNKNOWN" | "UNUSABLE" | "DEGRADED" | "OBSERVED_OK";

/** One arm's health line: its sums over every task and the status they give. */
export interface ArmHealth {
  readonly arm: string;
  readonly status: MeasurementHealthStatus;
  readonly freshAttempts: number;
  readonly admissible: number;
  readonly executionFailures: number;
  readonly evidenceFailures: number;
  /** The aggregates' health reasons (error kinds, transcript-missing), code-point sorted, duplicates removed. */
  readonly reasons: readonly string[];
}

/**
 * The arms whose measurement health gates a sweep (reference §5.8: the incumbents candidates are measured against,
 * `CANDIDATE_ARMS.values()`, plus `review` and `ce_review`): workflow, workflow_direct, review, ce_review. A candidate
 * that fails every run is a negative result the gate judges, not an unusable harness; an incumbent that does leaves
 * nothing to compare against.
 */
export const HEALTH_CHECKED_ARMS: ReadonlySet<string> = new Set<string>([...Object.values(CANDIDATE_ARMS), "review", "ce_review"]);

/**
 * Sums fresh attempts, admissible rows and execution / evidence failures per checked arm over all tasks and classifies
 * each (reference §5.8): UNKNOWN with no fresh attempt (only reused rows), UNUSABLE with failures and nothing
 * admissible, DEGRADED with any failure, else OBSERVED_OK. Arms outside HEALTH_CHECKED_ARMS are not judged: a baseline
 * that never resolves is a measurement, not an unhealthy harness. Trusts aggregates that passed checkAggregate; arms
 * come out in code-point order.
 */
export function assessMeasurementHealth(results: AggregatedResults): ArmHealth[] {
  const sums = new Map<string, { fresh: number; admissible: number; execution: number; evidence: number; reasons: Set<string> }>();
  for (const perArm of Object.values(results)) {
    for (const [arm, agg] of Object.entries(perArm)) {
      if (!HEALTH_CHECKED_ARMS.has(arm)) continue;
      const sum = sums.get(arm) ?? { fresh: 0, admissible: 0, execution: 0, evidence: 0, reasons: new Set<string>() };
      sum.fresh += agg.fresh_attempts;
      sum.admissible += agg.admissible;
      sum.execution += agg.execution_failures;
      sum.evidence += agg.evidence_failures;
      for (const reason of agg.health_reasons) sum.reasons.add(reason);
      sums.set(arm, sum);
    }
  }
  return [...sums.entries()]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([arm, sum]) => {
      const failures = sum.execution + sum.evidence;
      const status: MeasurementHealthStatus = sum.fresh === 0 ? "UNKNOWN" : sum.admissible === 0 && failures > 0 ? "UNUSABLE" : failures > 0 ? "DEGRADED" : "OBSERVED_OK";
      return { arm, status, freshAttempts: sum.fresh, admissible: sum.admissible, executionFailures: sum.execution, evidenceFailures: sum.evidence, reasons: [...sum.reasons].sort(compareCodePoints) };
    });
}
