export { SweepError, isSweepError } from "./errors.js";
export type { SweepErrorCode } from "./errors.js";
export { runSweep } from "./run-sweep.js";
export type { RunSweepInput, SweepEvent, SweepOptions, SweepSummary } from "./run-sweep.js";
