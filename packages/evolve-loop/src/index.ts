export { EvolveLoopError, isEvolveLoopError } from "./errors.js";
export type { EvolveLoopErrorCode } from "./errors.js";
export { EVOLVE_ARMS, EVOLVE_EFFORTS, EVOLVE_MAX_WORKERS, EVOLVE_USAGE, parseEvolveArgs } from "./parse-evolve-args.js";
export type { EvolveArgsContext, EvolveArgsResult, EvolveOptions, EvolveUsageError } from "./parse-evolve-args.js";
export { INSTANCE_WINDOW_SECONDS, MIN_PAID_STEP_SECONDS, STOP_RESERVE_SECONDS, instanceWindowBudgetSeconds, startRuntimeBudget } from "./runtime-budget.js";
export type { RuntimeBudget } from "./runtime-budget.js";
export { EVOLVE_EXIT, runEvolve } from "./run-evolve.js";
export type { EvolveHost } from "./run-evolve.js";
