export {
  OracleCleanupError,
  OracleError,
  OracleMountpointChangedError,
  OracleReadError,
  OracleRunInfrastructureError,
  OracleStageCollisionError,
  OracleStageInputError,
  OracleStageTamperedError,
  OracleStageWriteError,
  isOracleError,
} from "./errors.js";
export type { OracleErrorCode } from "./errors.js";
export {
  MAX_ORACLE_COMMAND_BYTES,
  MAX_ORACLE_FILES,
  MAX_ORACLE_FILE_BYTES,
  MAX_ORACLE_PATH_BYTES,
  MAX_ORACLE_TOTAL_BYTES,
  ORACLE_DIR_PREFIX,
  ORACLE_ENV_VAR,
  ORACLE_ENV_VAR_ALIAS,
  ORACLE_OUTPUT,
  REVIEW_LABELS_TARGET,
} from "./limits.js";
export {
  OracleDeclarationSchema,
  OracleFileDeclarationSchema,
  OracleRunReportSchema,
  findOraclePathViolation,
} from "./schema.js";
export type { OracleDeclaration, OracleDeclarationRule, OracleFileDeclaration, OracleRunReport } from "./schema.js";
export { validateOracleDeclaration } from "./validate-declaration.js";
export type {
  OracleDeclarationIssue,
  OracleDeclarationRefusal,
  OracleTaskKind,
  ValidateOracleDeclarationResult,
} from "./validate-declaration.js";
export { computeOracleDigests } from "./compute-oracle-digests.js";
export type { OracleBinding, OracleDigestInput, OracleFileBinding } from "./compute-oracle-digests.js";
export { OracleSnapshot, createOracleSnapshot } from "./oracle-snapshot.js";
export type { OracleSnapshotFile } from "./oracle-snapshot.js";
export { captureOracle } from "./capture-oracle.js";
export type { CaptureOracleResult, OracleCaptureRefusal, OracleCaptureRule } from "./capture-oracle.js";
export type { OracleCommandRunner, OracleRunRequest, OracleRunnerReport } from "./oracle-command-runner.js";
export { stageOracle } from "./stage-oracle.js";
export type { NodeIdentity, StageOracleOptions, StagedOracle } from "./stage-oracle.js";
export { verifyOracleMountpoint, verifyStagedOracle } from "./verify-staged-oracle.js";
export { removeStagedOracle } from "./remove-staged-oracle.js";
export { runHiddenOracle } from "./run-hidden-oracle.js";
export { createBwrapOracleRunner } from "./create-bwrap-oracle-runner.js";
export type { BwrapOracleRunnerOptions } from "./create-bwrap-oracle-runner.js";
export type { HiddenOracleVerdict, RunHiddenOracleOptions } from "./run-hidden-oracle.js";
export { readReviewLabels } from "./read-review-labels.js";
export type { ReadReviewLabelsResult } from "./read-review-labels.js";
