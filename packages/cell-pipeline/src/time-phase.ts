import { performance } from "node:perf_hooks";
import type { CellDraft } from "./empty-row.js";

/** Row keys of `timings_ms` the pipeline writes; sessions add `session_1`, `session_2`, … in the order they ran. */
export const CELL_PHASES = ["materialize", "setup", "verify", "oracle", "capture", "cleanup", "total"] as const;

/**
 * Runs `step` and adds its monotonic wall time (whole milliseconds) to the draft's `timings_ms[phase]`, also when the
 * step throws, so an interrupted cell still says where its time went. Adds, so a phase entered twice sums.
 */
export async function timePhase<T>(draft: CellDraft, phase: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    recordPhase(draft, phase, performance.now() - started);
  }
}

/** Adds `ms` (rounded to whole milliseconds, never negative) to the draft's `timings_ms[phase]`. */
export function recordPhase(draft: CellDraft, phase: string, ms: number): void {
  const timings = { ...(draft.timings_ms ?? {}) };
  timings[phase] = (timings[phase] ?? 0) + Math.max(0, Math.round(ms));
  draft.timings_ms = timings;
}
