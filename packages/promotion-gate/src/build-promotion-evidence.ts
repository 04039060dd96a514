import { CANDIDATE_ARMS, type CandidateArm } from "@wfbench/result-row";
import {
  DEFAULT_MAX_TASK_REGRESSION_PCT,
  DEFAULT_MIN_IMPROVEMENT_PCT,
  DEFAULT_MIN_RUNS,
  IMPLEMENTATION_QUALITY_RULE,
  MAX_FAILED_TASK_REGRESSION_PCT,
  MIN_GATED_TASK_RATIO,
  PROMOTION_SCHEMA_VERSION,
  REVIEW_METRIC,
  REVIEW_MIN_IMPROVEMENT,
  REVIEW_QUALITY_RULE,
  type PromotionMetric,
} from "./constants.js";
import { PromotionError } from "./errors.js";
import { evaluateImplementationCandidate } from "./evaluate-implementation-candidate.js";
import { evaluateReviewCandidate } from "./evaluate-review-candidate.js";
import type { AggregatedResults, CandidateDecision, CandidatePolicy, PromotionEvidence } from "./schema.js";

/** CLI-level thresholds a policy is built from (reference §2.1 defaults when omitted). */
export interface PolicyThresholds {
  readonly metric?: PromotionMetric;
  readonly minRuns?: number;
  readonly minImprovementPct?: number;
  readonly maxTaskRegressionPct?: number;
}

/** The reason appended to every decision of a sweep that did not complete. */
export const ABORTED_SWEEP_REASON = "sweep aborted; partial evidence cannot promote";

/**
 * Builds the recorded policy of one candidate arm (reference §4.6); trusts the thresholds, refuses an arm that is not
 * a candidate arm by throwing PromotionError(PROMOTION_UNKNOWN_ARM).
 */
export function buildCandidatePolicy(candidateArm: string, thresholds: PolicyThresholds = {}): CandidatePolicy {
  if (!Object.hasOwn(CANDIDATE_ARMS, candidateArm)) {
    throw new PromotionError("PROMOTION_UNKNOWN_ARM", `${JSON.stringify(candidateArm)} is not a candidate arm`);
  }
  const minRuns = thresholds.minRuns ?? DEFAULT_MIN_RUNS;
  if (candidateArm === "candidate_review") {
    return { metric: REVIEW_METRIC, min_runs: minRuns, min_improvement: REVIEW_MIN_IMPROVEMENT, quality_rule: REVIEW_QUALITY_RULE };
  }
  return {
    metric: thresholds.metric ?? "cost_usd",
    min_runs: minRuns,
    min_improvement_pct: thresholds.minImprovementPct ?? DEFAULT_MIN_IMPROVEMENT_PCT,
    max_task_regression_pct: thresholds.maxTaskRegressionPct ?? DEFAULT_MAX_TASK_REGRESSION_PCT,
    max_failed_task_regression_pct: MAX_FAILED_TASK_REGRESSION_PCT,
    min_gated_task_ratio: MIN_GATED_TASK_RATIO,
    quality_rule: IMPLEMENTATION_QUALITY_RULE,
  };
}

/** Inputs of buildPromotionEvidence. */
export interface PromotionEvidenceInput {
  readonly results: AggregatedResults;
  /** Candidate arm → policy, in the order the decisions are to be written. */
  readonly policy: Readonly<Record<string, CandidatePolicy>>;
  readonly model: string | null;
  /** False after an outage abort or a cancel: every decision is forced to insufficient_evidence. */
  readonly complete: boolean;
}

/**
 * Decides every candidate arm of a policy map (reference promotion_evidence, schema 6); trusts the aggregates and
 * policies, refuses a policy whose kind does not match its arm by throwing PromotionError(PROMOTION_POLICY_MISMATCH).
 */
export function buildPromotionEvidence(input: PromotionEvidenceInput): PromotionEvidence {
  const decisions: CandidateDecision[] = [];
  for (const [candidateArm, policy] of Object.entries(input.policy)) {
    if (!Object.hasOwn(CANDIDATE_ARMS, candidateArm)) {
      throw new PromotionError("PROMOTION_UNKNOWN_ARM", `${JSON.stringify(candidateArm)} is not a candidate arm`);
    }
    const incumbentArm = CANDIDATE_ARMS[candidateArm as CandidateArm];
    let decision: CandidateDecision;
    if (candidateArm === "candidate_review") {
      if (policy.metric !== REVIEW_METRIC) throw new PromotionError("PROMOTION_POLICY_MISMATCH", "candidate_review needs the review policy");
      decision = evaluateReviewCandidate({ results: input.results, incumbentArm, policy, model: input.model });
    } else {
      if (policy.metric === REVIEW_METRIC) throw new PromotionError("PROMOTION_POLICY_MISMATCH", `${candidateArm} needs an implementation policy`);
      decision = evaluateImplementationCandidate({ results: input.results, incumbentArm, candidateArm, policy, model: input.model });
    }
    if (!input.complete) {
      decision = { ...decision, decision: "insufficient_evidence", reasons: [...decision.reasons, ABORTED_SWEEP_REASON] };
    }
    decisions.push(decision);
  }
  return {
    schema_version: PROMOTION_SCHEMA_VERSION,
    run_status: input.complete ? "complete" : "aborted",
    policy: { ...input.policy },
    decisions,
  };
}
