import { compareCodePoints } from "./aggregate.js";
import { assertAggregate } from "./check-aggregate.js";
import { REVIEW_METRIC, REVIEW_REGRESSION_EPSILON } from "./constants.js";
import { formatNumber } from "./format-number.js";
import type { Aggregate, AggregatedResults, DecisionValue, ReviewDecision, ReviewPolicy, ReviewTaskRow } from "./schema.js";

/** Inputs of evaluateReviewCandidate. */
export interface ReviewCandidateInput {
  readonly results: AggregatedResults;
  readonly incumbentArm: string;
  readonly policy: ReviewPolicy;
  /** The benchmark model; null or blank means unnamed, which can never promote. */
  readonly model: string | null;
}

function readMetric(aggregate: Aggregate, field: "review_weighted_f1" | "review_blocker_recall" | "review_false_positives"): number | null {
  return aggregate[field] ?? null;
}

function formatScore(value: number): string {
  return formatNumber(value, 3);
}

/**
 * Review promotion gate (reference §5.4): every task gated; verdict on every repeat, minimum blocker recall,
 * clean-control false positives and clean pass, weighted-F1 improvement ≥ policy.min_improvement with no regression;
 * trusts aggregate field types (aggregate() or AggregateSchema) and refuses a pair that breaks a §5.2 invariant
 * (AggregateInvariantError, naming task, arm and field) instead of deciding on it; cost and latency play no part.
 */
export function evaluateReviewCandidate(input: ReviewCandidateInput): ReviewDecision {
  const { results, incumbentArm, policy, model } = input;
  const candidateArm = "candidate_review";
  const reasons: string[] = [];
  let insufficient = false;
  let regression = false;
  const improvedTasks: string[] = [];
  if (model === null || model.trim() === "") {
    insufficient = true;
    reasons.push("a named --model is required to promote; evidence from an unnamed model cannot be bound");
  }
  const rows: ReviewTaskRow[] = [];

  for (const task of Object.keys(results).sort(compareCodePoints)) {
    const arms = results[task] ?? {};
    const inc = arms[incumbentArm];
    const cand = arms[candidateArm];
    if (inc === undefined || cand === undefined) {
      insufficient = true;
      reasons.push(`${task}: ${inc === undefined ? incumbentArm : candidateArm} has no results, so the pair cannot be compared`);
      continue;
    }
    assertAggregate(task, incumbentArm, inc);
    assertAggregate(task, candidateArm, cand);
    const clean = inc.review_clean_control ?? cand.review_clean_control ?? false;
    const incF1 = readMetric(inc, "review_weighted_f1");
    const candF1 = readMetric(cand, "review_weighted_f1");
    const incBlocker = readMetric(inc, "review_blocker_recall");
    const candBlocker = readMetric(cand, "review_blocker_recall");
    const incFp = readMetric(inc, "review_false_positives");
    const candFp = readMetric(cand, "review_false_positives");
    const incCleanPass = inc.review_clean_pass ?? null;
    const candCleanPass = cand.review_clean_pass ?? null;
    rows.push({
      task,
      class: inc.class,
      incumbent_weighted_f1: incF1,
      incumbent: inc,
      candidate: cand,
      gated: true,
      candidate_weighted_f1: candF1,
      incumbent_blocker_recall: incBlocker,
      candidate_blocker_recall: candBlocker,
      incumbent_false_positives: incFp,
      candidate_false_positives: candFp,
      clean_control: clean,
      incumbent_clean_pass: incCleanPass,
      candidate_clean_pass: candCleanPass,
    });

    if (
      inc.valid_runs < policy.min_runs ||
      cand.valid_runs < policy.min_runs ||
      inc.valid_runs !== cand.valid_runs ||
      inc.excluded_runs > 0 ||
      cand.excluded_runs > 0
    ) {
      insufficient = true;
      reasons.push(
        `${task}: needs ${policy.min_runs} valid paired runs with zero exclusions (incumbent ${inc.valid_runs} valid/${inc.excluded_runs} excluded, candidate ${cand.valid_runs} valid/${cand.excluded_runs} excluded)`,
      );
    }

    const required: ReadonlyArray<readonly [string, unknown]> = clean
      ? [
          ["incumbent false positives", incFp],
          ["candidate false positives", candFp],
          ["incumbent clean pass", incCleanPass],
          ["candidate clean pass", candCleanPass],
        ]
      : [
          ["incumbent weighted F1", incF1],
          ["candidate weighted F1", candF1],
          ["incumbent false positives", incFp],
          ["candidate false positives", candFp],
        ];
    const missing = required.filter(([, value]) => value === null).map(([name]) => name);
    if (missing.length > 0) {
      insufficient = true;
      reasons.push(`${task}: review metrics unavailable: ${missing.join(", ")}`);
      continue;
    }

    const verdict = cand.review_verdict_correct ?? null;
    if (verdict === null) {
      insufficient = true;
      reasons.push(`${task}: candidate verdict correctness is unavailable`);
    } else if (verdict !== true) {
      regression = true;
      reasons.push(`${task}: candidate verdict was incorrect on a valid repeat`);
    }

    if ((incBlocker === null) !== (candBlocker === null)) {
      insufficient = true;
      reasons.push(`${task}: blocker recall was measured on only one arm`);
    } else if (incBlocker !== null && candBlocker !== null && candBlocker < incBlocker) {
      regression = true;
      reasons.push(`${task}: minimum blocker recall regressed from ${formatScore(incBlocker)} to ${formatScore(candBlocker)}`);
    }

    // The null checks above guarantee the required metrics of this task kind are present.
    if (clean) {
      if ((candFp as number) > (incFp as number)) {
        regression = true;
        reasons.push(`${task}: median false positives on a clean control rose from ${formatNumber(incFp as number, 1)} to ${formatNumber(candFp as number, 1)}`);
      }
      if (incCleanPass === true && candCleanPass === false) {
        regression = true;
        reasons.push(`${task}: clean control no longer passes on every repeat`);
      }
    } else {
      const incumbentScore = incF1 as number;
      const candidateScore = candF1 as number;
      if (candidateScore + REVIEW_REGRESSION_EPSILON < incumbentScore) {
        regression = true;
        reasons.push(`${task}: weighted review score regressed from ${formatScore(incumbentScore)} to ${formatScore(candidateScore)}`);
      } else if (candidateScore >= incumbentScore + policy.min_improvement) {
        improvedTasks.push(task);
        reasons.push(`${task}: weighted review score improved from ${formatScore(incumbentScore)} to ${formatScore(candidateScore)}`);
      }
    }
  }

  if (rows.length === 0) {
    insufficient = true;
    reasons.push("no review task has results for both arms, so there is nothing to compare");
  }

  let decision: DecisionValue;
  if (insufficient) {
    decision = "insufficient_evidence";
  } else if (regression) {
    decision = "keep_incumbent";
  } else if (improvedTasks.length === 0) {
    decision = "keep_incumbent";
    reasons.push("did not improve weighted review quality on any corpus case");
  } else {
    decision = "promote";
    reasons.push(`improves weighted review quality on ${improvedTasks.length} corpus case(s) with no regression`);
  }

  return {
    candidate_arm: candidateArm,
    incumbent_arm: incumbentArm,
    decision,
    metric: REVIEW_METRIC,
    model,
    tasks: rows,
    ungated_tasks: [],
    reasons,
  };
}
