export { isOracleError } from "./errors.js";
export { ORACLE_OUTPUT } from "./limits.js";
export type { OracleDeclaration } from "./schema.js";
export { validateOracleDeclaration } from "./validate-declaration.js";
export { OracleSnapshot } from "./oracle-snapshot.js";
export { captureOracle } from "./capture-oracle.js";
export { runHiddenOracle } from "./run-hidden-oracle.js";
export { createBwrapOracleRunner } from "./create-bwrap-oracle-runner.js";
export { readReviewLabels } from "./read-review-labels.js";
