/** Stops a heartbeat started by {@link startHeartbeat}. */
export type StopHeartbeat = () => void;

/**
 * Calls `beat` every `intervalMs` until stopped, so a long cell still shows the sweep is alive. The timer never keeps
 * the process alive on its own, and an exception in `beat` is the caller's bug: it is not swallowed.
 */
export function startHeartbeat(intervalMs: number, beat: () => void): StopHeartbeat {
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`heartbeat interval must be a positive number of ms, got ${intervalMs}`);
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
