export { RunnerError, isRunnerError } from "./errors.js";
export type { RunnerErrorCode } from "./errors.js";
export { DEMO_MODEL, EFFORTS, MAX_WORKERS, USAGE, checkModelName, parseArgs } from "./parse-args.js";
export type { ParseArgsContext, ParseArgsResult, RunnerOptions, UsageError } from "./parse-args.js";
