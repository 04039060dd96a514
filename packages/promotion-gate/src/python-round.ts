// Decisions are recomputed and compared for exact equality, so rounding and medians must be Python's: the one
// implementation lives in @wfbench/pycompat; this module only keeps the gate's historical names for its own files.
export { roundHalfEven, median as computeMedian } from "@wfbench/pycompat";
