export { PromotionError, isPromotionError, OverlayTransactionError, AggregateInvariantError } from "./errors.js";
export type { PromotionErrorCode, TransactionState } from "./errors.js";
export type { Result } from "./result.js";
export {
  PROMOTION_METRICS,
  MAIN_LOOP_ONLY_METRICS,
  MAIN_LOOP_ONLY_WARNING,
  PROMOTION_SCHEMA_VERSION,
  EVIDENCE_MAX_AGE_DAYS,
  MIN_GATED_TASK_RATIO,
  MAX_FAILED_TASK_REGRESSION_PCT,
  REVIEW_MIN_IMPROVEMENT,
  DEFAULT_MIN_RUNS,
  DEFAULT_MIN_IMPROVEMENT_PCT,
  DEFAULT_MAX_TASK_REGRESSION_PCT,
} from "./constants.js";
export type { PromotionMetric } from "./constants.js";
export {
  GateRowSchema,
  AggregateSchema,
  ImplementationPolicySchema,
  ReviewPolicySchema,
  CandidatePolicySchema,
  ImplementationDecisionSchema,
  ReviewDecisionSchema,
  TaskBindingSchema,
  PromotionEvidenceSchema,
  PromotionSchema,
  ApplyBindingsSchema,
  MEDIAN_FIELDS,
} from "./schema.js";
export type {
  GateRow,
  Aggregate,
  AggregatedResults,
  ImplementationPolicy,
  ReviewPolicy,
  CandidatePolicy,
  DecisionValue,
  ImplementationDecision,
  ImplementationTaskRow,
  ReviewDecision,
  ReviewTaskRow,
  CandidateDecision,
  TaskBinding,
  PromotionEvidence,
  Promotion,
  ApplyBindings,
} from "./schema.js";
export { parseResultRows } from "./parse-result-rows.js";
export type { RowRefusal } from "./parse-result-rows.js";
export { aggregate, aggregateByTaskArm, costOfRecord, isValidRow } from "./aggregate.js";
export { HEALTH_CHECKED_ARMS, assessMeasurementHealth } from "./assess-measurement-health.js";
export type { ArmHealth, MeasurementHealthStatus } from "./assess-measurement-health.js";
export { checkAggregate } from "./check-aggregate.js";
export type { AggregateRefusal } from "./check-aggregate.js";
export { evaluateImplementationCandidate } from "./evaluate-implementation-candidate.js";
export type { ImplementationCandidateInput } from "./evaluate-implementation-candidate.js";
export { evaluateReviewCandidate } from "./evaluate-review-candidate.js";
export type { ReviewCandidateInput } from "./evaluate-review-candidate.js";
export { buildCandidatePolicy, buildPromotionEvidence, ABORTED_SWEEP_REASON } from "./build-promotion-evidence.js";
export type { PolicyThresholds, PromotionEvidenceInput } from "./build-promotion-evidence.js";
export { buildPromotion, formatPromotionFile, serializePromotion } from "./build-promotion.js";
export type { BuildPromotionInput } from "./build-promotion.js";
export { validatePromotionForApply } from "./validate-promotion-for-apply.js";
export type { ApplyRefusal, ValidatedPromotion } from "./validate-promotion-for-apply.js";
export { MAX_OVERLAY_PATH_BYTES, checkOverlayPath, listMirrorTargets, computeOverlayDigest, isOverlayTemporaryName } from "./overlay-files.js";
export type { OverlayFile, OverlayPathRefusal, OverlayPathRule } from "./overlay-files.js";
export { nodeFsOperations } from "./fs-operations.js";
export type { FsOperations, FileIdentity } from "./fs-operations.js";
export { applyPromotedOverlay } from "./apply-promoted-overlay.js";
export type { ApplyOverlayInput, ApplyOverlayRefusal, AppliedOverlay } from "./apply-promoted-overlay.js";
export { isRecoveryJournalName, recoverOverlayTransaction, RecoveryJournalSchema } from "./recovery-journal.js";
export type { RecoveryJournal, RecoveryOptions, RecoveryOutcome, RecoveryRefusal, RecoveryRefusalCode } from "./recovery-journal.js";
