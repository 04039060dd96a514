export { OracleError, isOracleError } from "./errors.js";
export type { OracleErrorCode } from "./errors.js";
