import { z } from "zod";

/** Score keys in the order they are flattened into result rows as `review_<key>` (reference §4.2). */
export const REVIEW_SCORE_KEYS = [
  "true_positives",
  "false_positives",
  "false_negatives",
  "precision",
  "recall",
  "f1",
  "weighted_precision",
  "weighted_recall",
  "weighted_f1",
  "blocker_recall",
  "severity_accuracy",
  "category_accuracy",
  "grounded_evidence",
  "verdict_correct",
  "clean_control",
  "clean_pass",
  "score_finite",
] as const;

/** One of REVIEW_SCORE_KEYS. */
export type ReviewScoreKey = (typeof REVIEW_SCORE_KEYS)[number];

const ratio = z.number().min(0).max(1).nullable();

/**
 * The score of one review (reference §5.1), keys exactly as flattened into result rows as `review_<key>`; the row's
 * `review_score` dict. Refuses unknown keys, negative counts and ratios outside [0, 1].
 */
export const ReviewScoreSchema = z.strictObject({
  true_positives: z.int().min(0),
  false_positives: z.int().min(0),
  false_negatives: z.int().min(0),
  precision: ratio,
  recall: ratio,
  f1: ratio,
  weighted_precision: ratio,
  weighted_recall: ratio,
  weighted_f1: ratio,
  blocker_recall: ratio,
  severity_accuracy: ratio,
  category_accuracy: ratio,
  grounded_evidence: ratio,
  verdict_correct: z.boolean(),
  clean_control: z.boolean(),
  clean_pass: z.boolean(),
  score_finite: z.boolean(),
});

/** The score of one review. */
export type ReviewScore = z.infer<typeof ReviewScoreSchema>;

/** The numeric review fields whose medians (min for blocker recall) an aggregate carries (reference §5.2), in row order. */
export const REVIEW_METRIC_FIELDS = [
  "review_true_positives",
  "review_false_positives",
  "review_false_negatives",
  "review_precision",
  "review_recall",
  "review_f1",
  "review_weighted_precision",
  "review_weighted_recall",
  "review_weighted_f1",
  "review_blocker_recall",
  "review_severity_accuracy",
  "review_category_accuracy",
  "review_grounded_evidence",
] as const satisfies readonly `review_${ReviewScoreKey}`[];

/** One of REVIEW_METRIC_FIELDS. */
export type ReviewMetricField = (typeof REVIEW_METRIC_FIELDS)[number];

// Reader side: a count or ratio is never negative; the bounds of a fresh score are ReviewScoreSchema's.
const reviewCount = z.int().min(0).nullable();
const reviewRatio = z.number().finite().min(0).nullable();
const reviewFlag = z.boolean().nullable();

/**
 * The review fields of a review arm's row (reference §4.2): the score dict, whether it exists, the copied artifact's
 * name, and the flattened `review_<key>` of every score key (null when unscored). Absent on implementation rows.
 */
export const ReviewRowFieldsSchema = z.object({
  review_score: ReviewScoreSchema.nullable(),
  // Rows of the original may carry null here; only `false` marks invalid evidence (§4.3).
  review_evidence_valid: z.boolean().nullable(),
  review_artifact: z.string().min(1).nullable(),
  review_true_positives: reviewCount,
  review_false_positives: reviewCount,
  review_false_negatives: reviewCount,
  review_precision: reviewRatio,
  review_recall: reviewRatio,
  review_f1: reviewRatio,
  review_weighted_precision: reviewRatio,
  review_weighted_recall: reviewRatio,
  review_weighted_f1: reviewRatio,
  review_blocker_recall: reviewRatio,
  review_severity_accuracy: reviewRatio,
  review_category_accuracy: reviewRatio,
  review_grounded_evidence: reviewRatio,
  review_verdict_correct: reviewFlag,
  review_clean_control: reviewFlag,
  review_clean_pass: reviewFlag,
  review_score_finite: reviewFlag,
});

/** The review fields of a review arm's row. */
export type ReviewRowFields = z.infer<typeof ReviewRowFieldsSchema>;

// Compile-time: the flattened fields are exactly `review_<key>` for every score key, plus the three row-level ones.
type FlattenedKeys = Exclude<keyof ReviewRowFields, "review_score" | "review_evidence_valid" | "review_artifact">;
const flattenedExact: [FlattenedKeys] extends [`review_${ReviewScoreKey}`] ? ([`review_${ReviewScoreKey}`] extends [FlattenedKeys] ? true : false) : false = true;
void flattenedExact;
