import type { Readable } from "node:stream";

/** How a run ended; every run gets exactly one. Only `exited` means the command ran to its own exit. */
export type SandboxRunState =
  | "exited"
  | "timeout"
  | "forced-kill"
  | "cancelled"
  | "spawn-failure"
  | "sandbox-setup-failure"
  | "input-failure"
  | "cleanup-failure";

/** Which backend produced a result; rows from different backends must never be mixed. */
export type SandboxBackendKind = "bwrap" | "host-unsafe";

/** The record of one sandboxed command. `stdout` is complete unless `stdoutOverflow` says it hit the bound. */
export interface SandboxRunResult {
  readonly backend: SandboxBackendKind;
  readonly state: SandboxRunState;
  /** True only for state `exited` with exit code 0. */
  readonly ok: boolean;
  /** The command's exit code (128+N when it died from signal N); null when it never produced one. */
  readonly exitCode: number | null;
  /** Signal that ended the outermost process the harness spawned (e.g. SIGKILL after a forced kill). */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stdoutOverflow: boolean;
  /** The last bytes of stderr (bwrap's own diagnostics land here too). */
  readonly stderrTail: string;
  readonly durationMs: number;
  /** Why the sandbox could not start or be cleaned up, when the harness knows more than stderr says. */
  readonly setupError: string | null;
}

/** Options shared by every backend's run. */
export interface RunOptions {
  /**
   * Wall-clock limit; on expiry the command gets SIGTERM, then everything is killed after `graceMs`. Under bwrap the
   * command is pid 1 of its namespace, which the kernel spares SIGTERM unless it catches or ignores it: a command
   * that leaves SIGTERM at its default is SIGKILLed at once instead (state `forced-kill`).
   */
  readonly timeoutMs: number;
  /** Time between SIGTERM to the command and SIGKILL of the whole tree (default 5000). */
  readonly graceMs?: number;
  /** Cancellation: same stop sequence as a timeout, terminal state `cancelled`. */
  readonly signal?: AbortSignal;
  readonly stdin?: string | Buffer | Readable;
  /** Bound on captured stdout (default 16 MiB); beyond it bytes are drained and `stdoutOverflow` is set. */
  readonly maxStdoutBytes?: number;
  /** Bound on the kept stderr tail (default 64 KiB). */
  readonly stderrTailBytes?: number;
  /** Sees stdout chunks as they arrive; an exception in it only disables it. */
  readonly onStdout?: (chunk: Buffer) => void;
}

/** Default grace between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 5_000;
/** Default stdout capture bound. */
export const DEFAULT_MAX_STDOUT_BYTES = 16 * 1024 * 1024;
/** Default stderr tail bound. */
export const DEFAULT_STDERR_TAIL_BYTES = 64 * 1024;
