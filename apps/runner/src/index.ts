export { RunnerError, isRunnerError } from "./errors.js";
export type { RunnerErrorCode } from "./errors.js";
