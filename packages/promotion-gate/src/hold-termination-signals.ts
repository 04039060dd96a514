import { isMainThread } from "node:worker_threads";

/** Signals whose default action would otherwise end the process between two destination swaps. */
export const HELD_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Holds SIGINT, SIGTERM and SIGHUP back for the span of a synchronous critical section, so they take effect right after
 * it: a signal with no host listener then has its default effect (the process dies by that signal), and a host
 * listener runs as usual. Trusts that the section is synchronous; cannot hold SIGKILL (the recovery journal covers
 * that) and does nothing off the main thread, where Node delivers no signal events. Returns the release function.
 */
export function holdTerminationSignals(): () => void {
  if (!isMainThread) return () => undefined;
  const installed: Array<readonly [NodeJS.Signals, () => void]> = [];
  for (const signal of HELD_SIGNALS) {
    // A host listener already defers the signal to the event loop, i.e. past the synchronous section.
    if (process.listenerCount(signal) > 0) continue;
    const onSignal = (): void => {
      process.removeListener(signal, onSignal);
      // Emulates the default action only; a listener the host added in the meantime owns the signal.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
    installed.push([signal, onSignal]);
  }
  return () => {
    // A signal caught during the section waits in libuv's signal pipe until the next poll phase. Removing the listener
    // earlier would drop it, and an otherwise idle loop would exit without reading it; two check-phase hops keep the
    // loop alive through at least one poll phase wherever the section ran.
    setImmediate(() => {
      setImmediate(() => {
        for (const [signal, listener] of installed) process.removeListener(signal, listener);
      });
    });
  };
}
