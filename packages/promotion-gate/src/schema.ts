import { z } from "zod";
import { CANDIDATE_ARM_NAMES, ParsedRowSchema } from "@wfbench/result-row";
import { PROMOTION_METRICS, REVIEW_METRIC, UNMEASURABLE_MEDIAN_METRICS } from "./constants.js";

const count = z.number().int().nonnegative();

/** Usage, timing and churn fields whose medians an aggregate carries. */
export const MEDIAN_FIELDS = [
  "input_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "output_tokens",
  "duration_s",
  "num_turns",
  "diff_files",
  "diff_insertions",
  "diff_deletions",
] as const;

/** One of MEDIAN_FIELDS. */
export type MedianField = (typeof MEDIAN_FIELDS)[number];

/**
 * The row fields the gate reads (reference §4.2), picked from the row contract's read view: rows are parsed by
 * @wfbench/result-row first (every field checked, unknown error kinds refused), then reduced to these.
 */
export const GateRowSchema = ParsedRowSchema.pick({
  task: true,
  arm: true,
  class: true,
  error_kind: true,
  resolved: true,
  reused: true,
  transcript_missing: true,
  review_evidence_valid: true,
  cost_usd: true,
  wire_cost_usd: true,
  input_tokens: true,
  cache_creation_input_tokens: true,
  cache_read_input_tokens: true,
  output_tokens: true,
  duration_s: true,
  num_turns: true,
  diff_files: true,
  diff_insertions: true,
  diff_deletions: true,
  review_true_positives: true,
  review_false_positives: true,
  review_false_negatives: true,
  review_precision: true,
  review_recall: true,
  review_f1: true,
  review_weighted_precision: true,
  review_weighted_recall: true,
  review_weighted_f1: true,
  review_blocker_recall: true,
  review_severity_accuracy: true,
  review_category_accuracy: true,
  review_grounded_evidence: true,
  review_verdict_correct: true,
  review_clean_control: true,
  review_clean_pass: true,
});

/** A results row as the gate reads it; any parsed row of the contract is one. */
export type GateRow = z.infer<typeof GateRowSchema>;

const nullableMetric = z.number().finite().nullable().optional();

/**
 * One task × arm aggregate (reference §5.2) as embedded in promotion.json; review keys are absent unless the arm
 * carried review metrics. Trusts field types only; cross-field rules are checked by validatePromotionForApply.
 */
export const AggregateSchema = z.object({
  class: z.string(),
  runs: count,
  valid_runs: count,
  excluded_runs: count,
  resolved: count,
  resolved_fresh: count,
  fresh_attempts: count,
  execution_failures: count,
  evidence_failures: count,
  admissible: count,
  health_reasons: z.array(z.string()),
  transcripts_missing: count,
  error_kinds: z.record(z.string(), count),
  input_tokens: z.number().finite(),
  cache_creation_input_tokens: z.number().finite(),
  cache_read_input_tokens: z.number().finite(),
  output_tokens: z.number().finite(),
  duration_s: z.number().finite(),
  num_turns: z.number().finite(),
  diff_files: z.number().finite(),
  diff_insertions: z.number().finite(),
  diff_deletions: z.number().finite(),
  /** The median cost of record: rows' `wire_cost_usd` (their CLI `cost_usd` only for rows that predate the gateway). */
  cost_usd: z.number().finite().nullable(),
  /** The median of rows' CLI-reported `cost_usd`, shown beside the cost of record; absent in older promotion files. */
  cli_cost_usd: z.number().finite().nullable().optional(),
  /**
   * Promotion metrics some valid run left unmeasured (null): the gate reads them as unavailable, whatever the 0-filled
   * median beside them says. Absent when every valid run measured them (and in older promotion files).
   */
  unmeasured_metrics: z.array(z.enum(UNMEASURABLE_MEDIAN_METRICS)).optional(),
  review_true_positives: nullableMetric,
  review_false_positives: nullableMetric,
  review_false_negatives: nullableMetric,
  review_precision: nullableMetric,
  review_recall: nullableMetric,
  review_f1: nullableMetric,
  review_weighted_precision: nullableMetric,
  review_weighted_recall: nullableMetric,
  review_weighted_f1: nullableMetric,
  review_blocker_recall: nullableMetric,
  review_severity_accuracy: nullableMetric,
  review_category_accuracy: nullableMetric,
  review_grounded_evidence: nullableMetric,
  review_verdict_correct: z.boolean().nullable().optional(),
  review_clean_control: z.boolean().nullable().optional(),
  review_clean_pass: z.boolean().nullable().optional(),
});

/** Aggregate of one task × arm. */
export type Aggregate = z.infer<typeof AggregateSchema>;

/** results[task][arm] = aggregate. */
export type AggregatedResults = Readonly<Record<string, Readonly<Record<string, Aggregate>>>>;

/** Policy of an implementation candidate arm (reference §4.6). */
export const ImplementationPolicySchema = z
  .object({
    metric: z.enum(PROMOTION_METRICS),
    min_runs: z.number().int().min(1),
    min_improvement_pct: z.number().finite(),
    max_task_regression_pct: z.number().finite(),
    max_failed_task_regression_pct: z.number().finite(),
    min_gated_task_ratio: z.number().finite(),
    quality_rule: z.string(),
  })
  .strict();

/** Implementation candidate policy. */
export type ImplementationPolicy = z.infer<typeof ImplementationPolicySchema>;

/** Policy of the review candidate arm (reference §4.6). */
export const ReviewPolicySchema = z
  .object({
    metric: z.literal(REVIEW_METRIC),
    min_runs: z.number().int().min(1),
    min_improvement: z.number().finite(),
    quality_rule: z.string(),
  })
  .strict();

/** Review candidate policy. */
export type ReviewPolicy = z.infer<typeof ReviewPolicySchema>;

/** Either policy. */
export const CandidatePolicySchema = z.union([ReviewPolicySchema, ImplementationPolicySchema]);

/** Either policy. */
export type CandidatePolicy = z.infer<typeof CandidatePolicySchema>;

/** The three gate outcomes. */
export const DecisionValueSchema = z.enum(["promote", "keep_incumbent", "insufficient_evidence"]);

/** promote | keep_incumbent | insufficient_evidence. */
export type DecisionValue = z.infer<typeof DecisionValueSchema>;

/** Per-task row of an implementation decision (reference §4.6). */
export const ImplementationTaskRowSchema = z
  .object({
    task: z.string(),
    class: z.string(),
    incumbent_resolved: z.string(),
    candidate_resolved: z.string(),
    incumbent: AggregateSchema,
    candidate: AggregateSchema,
    incumbent_excluded_runs: count,
    candidate_excluded_runs: count,
    candidate_quality_floor_met: z.boolean(),
    quality_floor_enforced: z.boolean(),
    incumbent_metric: z.number().nullable(),
    candidate_metric: z.number().nullable(),
    improvement_pct: z.number().nullable(),
    gated: z.boolean(),
    skill_attributable_failure: z.boolean(),
  })
  .strict();

/** Per-task row of an implementation decision. */
export type ImplementationTaskRow = z.infer<typeof ImplementationTaskRowSchema>;

/** An implementation decision (reference §4.6). */
export const ImplementationDecisionSchema = z
  .object({
    incumbent_arm: z.string(),
    candidate_arm: z.string(),
    decision: DecisionValueSchema,
    metric: z.enum(PROMOTION_METRICS),
    metric_warning: z.string().nullable(),
    median_improvement_pct: z.number().nullable(),
    ungated_tasks: z.array(z.string()),
    gated_tasks: z.array(z.string()),
    reasons: z.array(z.string()),
    tasks: z.array(ImplementationTaskRowSchema),
  })
  .strict();

/** An implementation decision. */
export type ImplementationDecision = z.infer<typeof ImplementationDecisionSchema>;

/** Per-task row of a review decision (reference §4.6). */
export const ReviewTaskRowSchema = z
  .object({
    task: z.string(),
    class: z.string(),
    gated: z.literal(true),
    incumbent: AggregateSchema,
    candidate: AggregateSchema,
    incumbent_weighted_f1: z.number().nullable(),
    candidate_weighted_f1: z.number().nullable(),
    incumbent_blocker_recall: z.number().nullable(),
    candidate_blocker_recall: z.number().nullable(),
    incumbent_false_positives: z.number().nullable(),
    candidate_false_positives: z.number().nullable(),
    clean_control: z.boolean(),
    incumbent_clean_pass: z.boolean().nullable(),
    candidate_clean_pass: z.boolean().nullable(),
  })
  .strict();

/** Per-task row of a review decision. */
export type ReviewTaskRow = z.infer<typeof ReviewTaskRowSchema>;

/** A review decision (reference §4.6). */
export const ReviewDecisionSchema = z
  .object({
    candidate_arm: z.literal("candidate_review"),
    incumbent_arm: z.string(),
    decision: DecisionValueSchema,
    metric: z.literal(REVIEW_METRIC),
    model: z.string().nullable(),
    tasks: z.array(ReviewTaskRowSchema),
    ungated_tasks: z.array(z.string()).max(0),
    reasons: z.array(z.string()),
  })
  .strict();

/** A review decision. */
export type ReviewDecision = z.infer<typeof ReviewDecisionSchema>;

/** Either decision. */
export type CandidateDecision = ImplementationDecision | ReviewDecision;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex characters");

/** One oracle file binding of a selected task. */
export const OracleFileBindingSchema = z.object({
  target: z.string().trim().min(1),
  sha256: hex64,
  size: z.number().int().nonnegative(),
});

/**
 * One selected-task binding (reference §3.1); the digests the gate depends on are checked, every other key is kept
 * verbatim so exact equality with the caller's bindings can be required.
 */
export const TaskBindingSchema = z.looseObject({
  id: z.string().trim().min(1),
  oracle_digest: hex64,
  oracle_command_digest: hex64,
  oracle_manifest_digest: hex64,
  sandbox_dependency_content_digest: hex64,
  sandbox_dependency_manifest_digest: hex64,
  oracle_files: z.array(OracleFileBindingSchema).min(1),
});

/** A selected-task binding. */
export type TaskBinding = z.infer<typeof TaskBindingSchema>;

/** The evidence part of promotion.json (reference §4.6, promotion_evidence). */
export const PromotionEvidenceSchema = z.object({
  schema_version: z.literal(6),
  run_status: z.enum(["complete", "aborted"]),
  policy: z.record(z.string(), CandidatePolicySchema),
  decisions: z.array(z.union([ReviewDecisionSchema, ImplementationDecisionSchema])),
});

/** The evidence part of promotion.json. */
export type PromotionEvidence = z.infer<typeof PromotionEvidenceSchema>;

/** promotion.json schema 6 as written by buildPromotion; refuses unknown top-level keys. */
export const PromotionSchema = z
  .object({
    generated_at: z.string(),
    evidence_expires_at: z.string(),
    benchmark_model: z.string(),
    proposer_model: z.string().nullable(),
    effort: z.string().nullable(),
    candidate_origin: z.enum(["model-proposer", "manual-initial-overlay"]),
    candidate_overlay: z.string(),
    candidate_overlay_digest: z.string(),
    target_base_digests: z.record(z.string(), z.string()),
    required_candidate_arms: z.array(z.string()),
    selected_tasks: z.array(TaskBindingSchema),
    ce_plugin: z.record(z.string(), z.unknown()).nullable(),
  })
  .extend(PromotionEvidenceSchema.shape)
  .strict();

/** A schema-6 promotion document. */
export type Promotion = z.infer<typeof PromotionSchema>;

/** The exact values apply-time validation binds a promotion to (reference §5.5 step 3). */
export const ApplyBindingsSchema = z
  .object({
    benchmark_model: z.string().min(1),
    proposer_model: z.string().nullable(),
    effort: z.string().nullable(),
    candidate_origin: z.enum(["model-proposer", "manual-initial-overlay"]),
    candidate_overlay_digest: z.string(),
    required_candidate_arms: z.array(z.enum(CANDIDATE_ARM_NAMES as [string, ...string[]])).min(1),
    selected_tasks: z.array(z.record(z.string(), z.unknown())).min(1),
    target_base_digests: z.record(z.string(), z.string()),
    policy: z.record(z.string(), CandidatePolicySchema),
  })
  .strict();

/** Bindings for validatePromotionForApply. */
export type ApplyBindings = z.infer<typeof ApplyBindingsSchema>;
