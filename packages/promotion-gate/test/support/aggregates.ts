import type { Aggregate, ImplementationPolicy, ReviewPolicy } from "../../src/index.js";
import { buildCandidatePolicy } from "../../src/index.js";

/**
 * A fully measured implementation aggregate: 3 valid runs, all resolved, cost 1.0; override any field. Derived counts
 * follow the overrides (every row fresh, so resolved_fresh = resolved), keeping the §5.2 invariants the gate checks.
 */
export function makeAggregate(overrides: Partial<Aggregate> = {}): Aggregate {
  const runs = overrides.runs ?? 3;
  const valid = overrides.valid_runs ?? runs - (overrides.excluded_runs ?? 0);
  const resolved = overrides.resolved ?? valid;
  return {
    class: "trivial",
    runs,
    valid_runs: valid,
    excluded_runs: runs - valid,
    resolved,
    resolved_fresh: resolved,
    fresh_attempts: runs,
    execution_failures: 0,
    evidence_failures: 0,
    admissible: runs,
    health_reasons: [],
    transcripts_missing: 0,
    error_kinds: {},
    input_tokens: 1000,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 1000,
    duration_s: 100,
    num_turns: 10,
    diff_files: 1,
    diff_insertions: 10,
    diff_deletions: 2,
    cost_usd: 1.0,
    ...overrides,
  };
}

/** A review aggregate with review metrics; defect case by default. */
export function makeReviewAggregate(overrides: Partial<Aggregate> = {}): Aggregate {
  return makeAggregate({
    class: "review-defect",
    review_true_positives: 1,
    review_false_positives: 0,
    review_false_negatives: 0,
    review_precision: 1,
    review_recall: 1,
    review_f1: 1,
    review_weighted_precision: 1,
    review_weighted_recall: 1,
    review_weighted_f1: 0.5,
    review_blocker_recall: 1,
    review_severity_accuracy: 1,
    review_category_accuracy: 1,
    review_grounded_evidence: 1,
    review_verdict_correct: true,
    review_clean_control: false,
    review_clean_pass: false,
    ...overrides,
  });
}

/** The implementation policy with defaults (metric cost_usd, min runs 3, 5% improvement, 20% task cap). */
export function implementationPolicy(overrides: Partial<ImplementationPolicy> = {}): ImplementationPolicy {
  return { ...(buildCandidatePolicy("candidate_workflow") as ImplementationPolicy), ...overrides };
}

/** The review policy with defaults. */
export function reviewPolicy(overrides: Partial<ReviewPolicy> = {}): ReviewPolicy {
  return { ...(buildCandidatePolicy("candidate_review") as ReviewPolicy), ...overrides };
}
