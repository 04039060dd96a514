export { ReviewError, ReviewInvariantError, ReviewScoreInputError, isReviewError } from "./errors.js";
export type { ReviewErrorCode } from "./errors.js";
export {
  BLOCKING_SEVERITIES,
  FIELD_BYTE_LIMITS,
  MAX_FINDINGS,
  MAX_LABELS_BYTES,
  MAX_REVIEW_BYTES,
  REVIEW_FINDING_KEYS,
  REVIEW_LABEL_KEYS,
  REVIEW_LABELS_KEYS,
  REVIEW_LABELS_TARGET,
  REVIEW_OUTPUT,
  REVIEW_OUTPUT_ENV_VAR,
  REVIEW_OUTPUT_KEYS,
  REVIEW_SCHEMA_VERSION,
  SANDBOX_REVIEW_OUTPUT,
  SANDBOX_REVIEW_OUTPUT_PATH,
  SEVERITIES,
  SEVERITY_WEIGHT,
  SUGGESTED_CATEGORIES,
  VERDICTS,
} from "./constants.js";
export type { Severity, Verdict } from "./constants.js";
export type { Result } from "./result.js";
export { REVIEW_LABELS_RULES, REVIEW_OUTPUT_RULES } from "./review-issue.js";
export type { ReviewLabelsIssueCode, ReviewOutputIssueCode, ReviewParseIssue } from "./review-issue.js";
export { parseReviewOutput } from "./parse-review-output.js";
export type { ReviewOutputIssue } from "./parse-review-output.js";
export { parseLabels } from "./parse-labels.js";
export type { ReviewLabelsIssue } from "./parse-labels.js";
export { compareFindings, compareLabels, matchReviewFindings } from "./match-findings.js";
export type { ReviewMatching, ReviewPair } from "./match-findings.js";
export {
  REVIEW_SCORE_KEYS,
  expectedVerdict,
  flattenReviewScore,
  isReviewOraclePassed,
  scoreReview,
} from "./score-review.js";
export { REVIEW_PROMPT_CONTRACT, buildReviewPromptContract } from "./prompt-contract.js";
export { buildReviewLabelsJsonSchema, buildReviewOutputJsonSchema } from "./json-schema.js";
export {
  ReviewFindingListSchema,
  ReviewFindingSchema,
  ReviewLabelFileSchema,
  ReviewLabelListSchema,
  ReviewLabelSchema,
  ReviewLabelsFileSchema,
  ReviewLabelsSchema,
  ReviewOutputFileSchema,
  ReviewOutputFindingFileSchema,
  ReviewOutputSchema,
  ReviewScoreSchema,
  SeveritySchema,
  VerdictSchema,
} from "./schema.js";
export type { ReviewFinding, ReviewLabel, ReviewLabels, ReviewOutput, ReviewScore } from "./schema.js";
export { normalizeRepoPath, normpathPosix } from "./normalize-repo-path.js";
export type { RepoPathResult } from "./normalize-repo-path.js";
export { roundHalfEven6 } from "./round-half-even.js";
