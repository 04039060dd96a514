import { performance } from "node:perf_hooks";
import type { CellDraft } from "./empty-row.js";

/** Row keys of `timings_ms` the pipeline writes; sessions add `session_1`, `session_2`, … in the order they ran. */
export const CELL_PHASES = ["materialize", "setup", "verify", "oracle", "capture", "cleanup", "total", "task_commands"] as const;

/**
 * The `timings_ms` key that sums the wall time of the task's own commands (its setup command, verify, the oracle's
 * candidate and command runs, each with its sandbox start-up). It overlaps setup, verify and oracle rather than adding
 * to them: the report subtracts it to show what the harness itself costs.
 */
export const TASK_COMMANDS_PHASE = "task_commands";

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

/** `sandbox` with the wall time of every call added to the draft's `timings_ms[phase]` (a task's command runs through it). */
export function timeEachCall<A extends unknown[], R>(draft: CellDraft, phase: string, sandbox: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args: A) => timePhase(draft, phase, () => sandbox(...args));
}
