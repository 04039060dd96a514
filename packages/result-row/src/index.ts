export { ResultRowError, isResultRowError } from "./errors.js";
export type { ResultRowErrorCode } from "./errors.js";
export {
  CANDIDATE_ARMS,
  CANDIDATE_ARM_NAMES,
  CE_ARMS,
  DEFAULT_ARMS,
  HOST_UNSAFE_ARMS,
  IMPLEMENTATION_ARMS,
  KNOWN_ARMS,
  REVIEW_ARMS,
  SUPPORTED_ARMS,
  isCandidateArm,
  isCeArm,
  isSupportedArm,
  resolveIncumbentArm,
} from "./arms.js";
export type { Arm, CandidateArm, CeArm, IncumbentArm, KnownArm } from "./arms.js";
export { CANDIDATE_FAILURE_KINDS, ERROR_KINDS, EVIDENCE_FAILURE_KINDS, EXCLUDED_ERROR_KINDS, EXECUTION_FAILURE_KINDS, SYSTEMIC_OUTAGE_KINDS, isErrorKind, isExcludedErrorKind } from "./error-kinds.js";
export type { ErrorKind } from "./error-kinds.js";
export { REVIEW_METRIC_FIELDS, REVIEW_SCORE_KEYS, ReviewRowFieldsSchema, ReviewScoreSchema } from "./review-fields.js";
export type { ReviewMetricField, ReviewRowFields, ReviewScore, ReviewScoreKey } from "./review-fields.js";
export {
  COST_DISAGREEMENT_THRESHOLD,
  ErrorDetailSchema,
  ParsedRowSchema,
  ROW_SCHEMA_VERSION,
  ResultRowSchema,
  SessionErrorDetailSchema,
  TRANSCRIPT_SOURCE,
  TranscriptArtifactRecordSchema,
} from "./row-schema.js";
export type { ErrorDetail, ParsedRow, ResultRow, ResultRowFields, SessionErrorDetail, TranscriptArtifactRecord } from "./row-schema.js";
export { buildResultRow, parseResultRow } from "./parse-row.js";
export type { ParseRowResult, RowRefusal } from "./parse-row.js";
