import { z } from "zod";
import { EvolveLoopError } from "./errors.js";

/** Default instance lifetime the instance-window cap assumes (reference §2.2). */
export const INSTANCE_WINDOW_SECONDS = 86_400;
/** Default time kept back before the instance is stopped (reference §2.2). */
export const STOP_RESERVE_SECONDS = 5_400;
/** No paid step (proposer, sweep) starts with less than this left, and no cap may start below it. */
export const MIN_PAID_STEP_SECONDS = 600;

const UPTIME_LINE = z.string().regex(/^\s*\d+(?:\.\d+)?\s+\d+(?:\.\d+)?\s*$/u);

/**
 * The wall-clock cap left in this instance's window: int(window − uptime − reserve), from the text of /proc/uptime.
 * Trusts the caller to read /proc/uptime at the same instant it reads the monotonic clock; refuses text that is not
 * two non-negative numbers (EVOLVE_LOOP_BAD_UPTIME).
 */
export function instanceWindowBudgetSeconds(uptimeText: string, windowSeconds = INSTANCE_WINDOW_SECONDS, reserveSeconds = STOP_RESERVE_SECONDS): number {
  const parsed = UPTIME_LINE.safeParse(uptimeText);
  if (!parsed.success) throw new EvolveLoopError("EVOLVE_LOOP_BAD_UPTIME", `/proc/uptime holds ${JSON.stringify(uptimeText.slice(0, 80))}, not "<uptime> <idle>" seconds`);
  const uptime = Number(parsed.data.trim().split(/\s+/u)[0]);
  return Math.trunc(windowSeconds - uptime - reserveSeconds);
}

/** A wall-clock cap measured on one monotonic clock: what is left, whether a paid step may start, clamped timeouts. */
export interface RuntimeBudget {
  /** The cap in seconds, or null when the run has no cap. */
  readonly capSeconds: number | null;
  /** Seconds left at `nowMs` (Infinity without a cap, never below 0). */
  remainingSeconds(nowMs: number): number;
  /** Null when `step` may start at `nowMs`; else the reason it may not (less than MIN_PAID_STEP_SECONDS left). */
  refusePaidStep(nowMs: number, step: string): string | null;
  /** `timeoutSeconds` clamped to the whole seconds left at `nowMs`, so no child outlives the cap. */
  clampTimeoutSeconds(nowMs: number, timeoutSeconds: number): number;
}

/**
 * Starts the budget at `startMs` (a monotonic clock reading in ms, e.g. performance.now()). Trusts the clock to be
 * monotonic; refuses a cap that is not a positive whole number (EVOLVE_LOOP_BAD_BUDGET).
 */
export function startRuntimeBudget(capSeconds: number | null, startMs: number): RuntimeBudget {
  if (capSeconds !== null && !(Number.isSafeInteger(capSeconds) && capSeconds > 0)) {
    throw new EvolveLoopError("EVOLVE_LOOP_BAD_BUDGET", `a runtime cap must be a positive whole number of seconds, got ${capSeconds}`);
  }
  const remainingSeconds = (nowMs: number): number => (capSeconds === null ? Number.POSITIVE_INFINITY : Math.max(0, capSeconds - (nowMs - startMs) / 1000));
  return {
    capSeconds,
    remainingSeconds,
    refusePaidStep(nowMs, step) {
      const left = remainingSeconds(nowMs);
      if (left >= MIN_PAID_STEP_SECONDS) return null;
      return `${step} not started: ${Math.floor(left)} s of the runtime cap left, a paid step needs at least ${MIN_PAID_STEP_SECONDS} s`;
    },
    clampTimeoutSeconds(nowMs, timeoutSeconds) {
      return Math.max(0, Math.min(timeoutSeconds, Math.floor(remainingSeconds(nowMs))));
    },
  };
}
