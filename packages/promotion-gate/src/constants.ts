/** Efficiency metrics the implementation gate accepts. */
export const PROMOTION_METRICS = ["output_tokens", "cost_usd", "duration_s", "num_turns"] as const;

/** One of PROMOTION_METRICS. */
export type PromotionMetric = (typeof PROMOTION_METRICS)[number];

/**
 * Promotion metrics that are also aggregate medians (reference §5.2) and that a valid run may leave unmeasured (null);
 * code-point sorted, the order an aggregate's `unmeasured_metrics` lists them in.
 */
export const UNMEASURABLE_MEDIAN_METRICS = ["duration_s", "num_turns", "output_tokens"] as const;

/** Metrics that count only the main loop: subagent work is invisible in them. */
export const MAIN_LOOP_ONLY_METRICS: readonly PromotionMetric[] = ["output_tokens", "num_turns"];

/** Warning attached to decisions that were gated on a main-loop-only metric. */
export const MAIN_LOOP_ONLY_WARNING =
  "output_tokens and num_turns count the main loop only; subagent work is invisible to this metric, cost_usd is the only figure that includes it";

/** Health reason recorded for a row whose only evidence failure is a missing transcript. */
export const TRANSCRIPT_MISSING_REASON = "transcript-missing";

/** promotion.json schema version this package reads and writes. */
export const PROMOTION_SCHEMA_VERSION = 6;
/** Days a promotion's evidence stays valid. */
export const EVIDENCE_MAX_AGE_DAYS = 90;
/** Ungated tasks must stay at most this share of all tasks (gated ≥ ratio × total). */
export const MIN_GATED_TASK_RATIO = 0.5;
/** Spend cap on ungated (mutually unresolved) tasks, in percent. */
export const MAX_FAILED_TASK_REGRESSION_PCT = 100.0;
/** Minimum weighted-F1 gain on one defect case that counts as a review improvement. */
export const REVIEW_MIN_IMPROVEMENT = 0.01;
/** Tolerance under which a weighted-F1 drop is not a regression. */
export const REVIEW_REGRESSION_EPSILON = 1e-9;
/** Resolution margin (in runs) that promotes on quality alone. */
export const RESOLUTION_MARGIN_TO_PROMOTE = 2;
/** How far in the future generated_at may lie at apply time. */
export const MAX_FUTURE_SKEW_MS = 5 * 60 * 1000;

/** Default thresholds of the implementation gate (reference §2.1 and §5.3). */
export const DEFAULT_MIN_RUNS = 3;
/** Default median improvement needed to promote, in percent. */
export const DEFAULT_MIN_IMPROVEMENT_PCT = 5.0;
/** Default per-task efficiency regression cap, in percent. */
export const DEFAULT_MAX_TASK_REGRESSION_PCT = 20.0;

/** Quality rule text recorded in an implementation policy. */
export const IMPLEMENTATION_QUALITY_RULE = "no per-task resolution-rate regression";
/** Quality rule text recorded in the review policy. */
export const REVIEW_QUALITY_RULE = "correct verdict on every repeat; minimum blocker recall; no clean-control regression";
/** The metric of the review gate. */
export const REVIEW_METRIC = "review_weighted_f1";

