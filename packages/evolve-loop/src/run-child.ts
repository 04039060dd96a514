import { spawn } from "node:child_process";
import { EvolveLoopError } from "./errors.js";

/** Grace between SIGTERM to a child's process group and SIGKILL (reference §9.1). */
export const CHILD_KILL_GRACE_MS = 15_000;

/** One child evolve owns: the command, its environment (credentials only here, never in argv), its deadline. */
export interface ChildInput {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Wall-clock deadline in ms, or null for none. */
  readonly timeoutMs: number | null;
  /** Aborting stops the child: SIGTERM to its group, SIGKILL after the grace. */
  readonly signal: AbortSignal;
  onStdout(text: string): void;
  onStderr(text: string): void;
  /** Called once the child runs, with its pid (= its process group id). */
  onStart?(pid: number): void;
  readonly graceMs?: number;
}

/** How a child ended. */
export interface ChildOutcome {
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  readonly cancelled: boolean;
  readonly timedOut: boolean;
}

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a child in its own process group (detached) with stdout/stderr handed to the writers. On abort or timeout:
 * SIGTERM to the whole group, SIGKILL after the grace. When the child has exited, whatever is left of its group is
 * SIGKILLed, so nothing of it outlives the call. Throws EvolveLoopError(EVOLVE_LOOP_CHILD_FAILED) when it cannot start.
 */
export function runChild(input: ChildInput): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(input.command, [...input.args], { cwd: input.cwd, env: { ...input.env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let cancelled = false;
    let timedOut = false;
    let killTimer: NodeJS.Timeout | null = null;
    const stop = (): void => {
      if (child.pid === undefined || killTimer !== null) return;
      killGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      }, input.graceMs ?? CHILD_KILL_GRACE_MS);
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const deadline =
      input.timeoutMs === null
        ? null
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, input.timeoutMs);
    if (child.pid !== undefined) input.onStart?.(child.pid);
    if (input.signal.aborted) onAbort();
    else input.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => input.onStdout(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => input.onStderr(chunk));
    child.on("error", (error) => {
      if (deadline !== null) clearTimeout(deadline);
      if (killTimer !== null) clearTimeout(killTimer);
      input.signal.removeEventListener("abort", onAbort);
      reject(new EvolveLoopError("EVOLVE_LOOP_CHILD_FAILED", `could not start ${input.command}: ${error.message}`, { cause: error }));
    });
    child.on("close", (code) => {
      if (deadline !== null) clearTimeout(deadline);
      if (killTimer !== null) clearTimeout(killTimer);
      input.signal.removeEventListener("abort", onAbort);
      // The leader is gone; a straggler of its group (a grandchild that ignored SIGTERM) is not left behind.
      if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      resolve({ exitCode: code, cancelled, timedOut });
    });
  });
}
