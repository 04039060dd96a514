import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

/** What a caller can feed a sandboxed command on stdin. */
export type StdinSource = string | Buffer | Readable;

/** Bounds and hooks shared by every backend's supervision loop. */
export interface SuperviseOptions {
  stdin: StdinSource | undefined;
  timeoutMs: number;
  graceMs: number;
  signal: AbortSignal | undefined;
  maxStdoutBytes: number;
  stderrTailBytes: number;
  onStdout: ((chunk: Buffer) => void) | undefined;
  /** Ask the command to stop (SIGTERM to the command, never to the supervisor). */
  stopGracefully: () => void;
  /** Kill everything the run owns; must make the child's stdio close. */
  killHard: () => void;
}

/** What the supervision loop observed; backends turn this into a terminal state. */
export interface SupervisedOutcome {
  spawnError: Error | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stdoutOverflow: boolean;
  stderrTail: string;
  stopReason: "timeout" | "cancel" | null;
  hardKilled: boolean;
  stdinError: Error | null;
  /** True when stdio was still held open after a hard kill and had to be destroyed. */
  stdioStuck: boolean;
}

/** Drives one spawned child to completion: feeds stdin, bounds output, enforces timeout and cancellation. */
export function superviseChild(child: ChildProcess, options: SuperviseOptions): Promise<SupervisedOutcome> {
  return new Promise((resolve) => {
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutOverflow = false;
    let stderrTail = Buffer.alloc(0);
    let observer = options.onStdout;
    let stopReason: SupervisedOutcome["stopReason"] = null;
    let hardKilled = false;
    let stdinError: Error | null = null;
    let spawnError: Error | null = null;
    let stdioStuck = false;
    // Set once every stdin byte has been handed to the pipe; the EPIPE of a short read may arrive after "close".
    let stdinDelivered = child.stdin === null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let stuckTimer: NodeJS.Timeout | undefined;

    child.stdout?.on("data", (chunk: Buffer) => {
      if (observer !== undefined) {
        try {
          observer(chunk);
        } catch {
          // A broken progress observer must never change the run's outcome; it just stops being called.
          observer = undefined;
        }
      }
      const room = options.maxStdoutBytes - stdoutBytes;
      if (chunk.length > room) {
        stdoutOverflow = true;
        if (room > 0) stdoutChunks.push(chunk.subarray(0, room));
        stdoutBytes = options.maxStdoutBytes;
      } else {
        stdoutChunks.push(chunk);
        stdoutBytes += chunk.length;
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const joined = Buffer.concat([stderrTail, chunk]);
      stderrTail = joined.length > options.stderrTailBytes ? joined.subarray(joined.length - options.stderrTailBytes) : joined;
    });

    const hardKill = (): void => {
      if (hardKilled) return;
      hardKilled = true;
      options.killHard();
      // Descendants outside our reach could hold the pipes open; do not wait on them forever.
      stuckTimer = setTimeout(() => {
        stdioStuck = true;
        for (const stream of child.stdio) stream?.destroy();
        finish(child.exitCode, child.signalCode);
      }, 5_000);
    };
    const stop = (reason: "timeout" | "cancel"): void => {
      if (stopReason !== null || settled) return;
      stopReason = reason;
      try {
        options.stopGracefully();
      } catch {
        hardKill();
        return;
      }
      graceTimer = setTimeout(hardKill, options.graceMs);
    };
    const timeoutTimer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = (): void => stop("cancel");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    function finish(code: number | null, signal: NodeJS.Signals | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      clearTimeout(stuckTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (!stdinDelivered && stdinError === null) stdinError = new Error("the command exited before taking all of its stdin");
      resolve({
        spawnError,
        exitCode: code,
        signal,
        stdout: Buffer.concat(stdoutChunks),
        stdoutOverflow,
        stderrTail: stderrTail.toString("utf8"),
        stopReason,
        hardKilled,
        stdinError,
        stdioStuck,
      });
    }

    child.on("error", (error) => {
      if (child.pid === undefined) {
        spawnError = error;
        finish(null, null);
      }
    });
    child.on("close", (code, signal) => finish(code, signal));

    const stdin = child.stdin;
    if (stdin !== null) {
      stdin.on("finish", () => {
        stdinDelivered = true;
      });
      stdin.on("error", (error: NodeJS.ErrnoException) => {
        // Bytes that never reached the pipe (EPIPE once the command is gone) mean the command ran on part of its input.
        if (!stdinDelivered) stdinError = error;
      });
      const source = options.stdin;
      // With nothing to deliver there is nothing to lose, however fast the command exits.
      if (source === undefined || ((typeof source === "string" || Buffer.isBuffer(source)) && source.length === 0)) stdinDelivered = true;
      if (source === undefined) stdin.end();
      else if (typeof source === "string" || Buffer.isBuffer(source)) stdin.end(source);
      else {
        source.on("error", (error) => {
          stdinError = error;
          stdin.end();
        });
        source.pipe(stdin);
      }
    }
    if (options.signal?.aborted === true) stop("cancel");
  });
}
