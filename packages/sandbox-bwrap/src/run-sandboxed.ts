import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, closeSync, constants as fsConstants, openSync, readFileSync } from "node:fs";
import { readFile, readlink } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { BWRAP_FDS, assertRunBounds, buildBwrapArgv, buildBwrapCommandLine, encodeArgsFile, parseSandboxPolicy, type HostLayout } from "./build-argv.js";
import { checkMountSources, detectHostLayout } from "./check-mount-sources.js";
import { compileSeccompFilter } from "./compile-seccomp.js";
import { listInheritableFds } from "./inherited-fds.js";
import {
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_STDOUT_BYTES,
  DEFAULT_STDERR_TAIL_BYTES,
  type RunOptions,
  type SandboxRunResult,
  type SandboxRunState,
} from "./run-result.js";
import { BwrapStatusRecordSchema, DEFAULT_SANDBOX_OPEN_FILES, type SandboxPolicy, type SandboxPolicyInput } from "./schema.js";
import { superviseChild } from "./supervise-process.js";

/** Default bwrap binary (Debian's package path). */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
/** util-linux prlimit: lowers RLIMIT_NOFILE on the host side and execs bwrap, so the limit covers the whole sandbox. */
export const PRLIMIT_PATH = "/usr/bin/prlimit";

/** A host uid/gid that bwrap itself runs as, so the sandbox's uid 1000 maps to it instead of to the caller's uid. */
export interface HostIdentity {
  readonly uid: number;
  readonly gid: number;
}

/** Options of a bwrap run: the shared run options plus where bwrap is and which seccomp table to use. */
export interface BwrapRunOptions extends RunOptions {
  readonly bwrapPath?: string;
  /** Overrides the detected /usr layout of the host (merged-/usr symlinks vs real directories). */
  readonly hostLayout?: HostLayout;
  /** Node `process.arch` naming the seccomp table (default: the running arch); unknown arches fail closed. */
  readonly arch?: string;
  /**
   * Runs bwrap as this unprivileged host identity (the caller must be root). The sandbox user then is that uid on the
   * host (`uid_map 1000 <uid> 1`), not host root: every mount source and its ancestors must be reachable by it, and
   * writable ones owned by it. Absent: bwrap runs as the caller, so a root caller's sandbox user is host uid 0.
   */
  readonly hostIdentity?: HostIdentity;
}

let cachedLayout: Promise<HostLayout> | null = null;
// The host's /usr layout does not change while the harness runs; read it once.
function hostLayoutOnce(): Promise<HostLayout> {
  cachedLayout ??= detectHostLayout();
  return cachedLayout;
}

/** What bwrap reported on --json-status-fd. */
interface BwrapStatus {
  childPid: number | null;
  pidNamespace: number | null;
  exitCode: number | null;
}

function parseStatus(text: string): BwrapStatus {
  const status: BwrapStatus = { childPid: null, pidNamespace: null, exitCode: null };
  // bwrap writes one JSON document per line; anything unparsable is ignored rather than trusted.
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const record = BwrapStatusRecordSchema.safeParse(value);
    if (!record.success) continue;
    const data = record.data as Record<string, unknown>;
    if (typeof data["exit-code"] === "number") status.exitCode = data["exit-code"];
    if (typeof data["child-pid"] === "number") status.childPid = data["child-pid"];
    if (typeof data["pid-namespace"] === "number") status.pidNamespace = data["pid-namespace"];
  }
  return status;
}

/** True while `pid` is still the running init (the command) of the sandbox's pid namespace (guards against pid reuse). */
async function isSandboxInitAlive(pid: number, pidNamespace: number | null): Promise<boolean> {
  try {
    const link = await readlink(`/proc/${pid}/ns/pid`);
    if (pidNamespace !== null && link !== `pid:[${pidNamespace}]`) return false;
    // A zombie has already had its namespace torn down; whoever adopted it reaps it in its own time.
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

// Bit N-1 of the SigCgt/SigIgn masks in /proc/<pid>/status stands for signal N (SIGTERM = 15).
const SIGTERM_BIT = 1n << 14n;
const SIGNAL_MASK_LINE = /^(SigCgt|SigIgn):\s*([0-9a-f]+)$/gm;

/**
 * Whether SIGTERM can stop `pid` at all. The command is its namespace's init (`--as-pid-1`), and the kernel drops
 * any signal an init has left at the default disposition unless it is SIGKILL/SIGSTOP from an ancestor namespace.
 * A caught or ignored SIGTERM behaves as for any process; an unreadable status counts as not stoppable.
 */
function sigtermReachesInit(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return false;
  }
  let handled = 0n;
  for (const match of status.matchAll(SIGNAL_MASK_LINE)) handled |= BigInt(`0x${match[2] ?? "0"}`);
  return (handled & SIGTERM_BIT) !== 0n;
}

function safeKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function setupFailure(started: number, setupError: string, stderrTail = ""): SandboxRunResult {
  return {
    backend: "bwrap",
    state: "sandbox-setup-failure",
    ok: false,
    exitCode: null,
    signal: null,
    stdout: Buffer.alloc(0),
    stdoutOverflow: false,
    stderrTail,
    durationMs: Date.now() - started,
    setupError,
  };
}

/**
 * Runs `argv` inside bwrap under `policy` and always returns a terminal state. Trusts bwrap and the kernel;
 * never trusts the command: no exit record on the status fd means the sandbox failed, whatever bwrap's exit code.
 * Mount sources are checked first (a bad one is `sandbox-setup-failure`, nothing is spawned).
 * @throws {SandboxPolicyError} for a policy, argv or run options the schema refuses.
 * @throws {SeccompUnsupportedArchError} on an architecture without a syscall table.
 */
export async function runSandboxed(
  policyInput: SandboxPolicyInput | SandboxPolicy,
  argv: readonly string[],
  options: BwrapRunOptions,
): Promise<SandboxRunResult> {
  const started = Date.now();
  const policy = parseSandboxPolicy(policyInput);
  assertRunBounds(options);
  const commandLine = buildBwrapCommandLine(argv);
  const filter = compileSeccompFilter(options.arch ?? process.arch);
  const argsFile = encodeArgsFile(buildBwrapArgv(policy, options.hostLayout ?? (await hostLayoutOnce())));
  if (options.signal?.aborted === true) {
    return { ...setupFailure(started, "cancelled before start"), state: "cancelled" };
  }
  const sources = await checkMountSources(policy);
  if (!sources.ok) return setupFailure(started, sources.error.join("; "));
  return spawnBwrap(options.bwrapPath ?? DEFAULT_BWRAP_PATH, argsFile, filter, commandLine, options, started, {
    maxOpenFiles: policy.maxOpenFiles,
    ...(options.hostIdentity === undefined ? {} : { hostIdentity: options.hostIdentity }),
  });
}

/** How bwrap itself is started: its RLIMIT_NOFILE (inherited by everything inside) and the host identity it runs as. */
export interface BwrapLaunch {
  readonly maxOpenFiles?: number;
  readonly hostIdentity?: HostIdentity;
}

function spawnFailure(started: number, bwrapPath: string, error: unknown): SandboxRunResult {
  const message = error instanceof Error ? error.message : String(error);
  return { ...setupFailure(started, `cannot start ${bwrapPath}: ${message}`), state: "spawn-failure" };
}

// Six stdio socketpairs plus libuv's exec-error pipe. A spawn that runs out of descriptors halfway keeps the parent
// ends it already made (measured: 6 sockets lost per attempt on Node 20.20 / libuv 1.46), so a starved harness must not
// even try: it would never get them back.
const SPAWN_FD_HEADROOM = 16;

function probeDescriptorHeadroom(): Error | null {
  const probe: number[] = [];
  try {
    while (probe.length < SPAWN_FD_HEADROOM) probe.push(openSync("/dev/null", "r"));
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    for (const fd of probe) closeSync(fd);
  }
}

/** This process's hard RLIMIT_NOFILE from /proc/self/limits (Node has no getrlimit); null when unreadable or unlimited. */
function readHardOpenFileLimit(): number | null {
  try {
    const line = /^Max open files\s+\S+\s+(\d+)\s/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return line?.[1] === undefined ? null : Number(line[1]);
  } catch {
    return null;
  }
}

function isIdentity(identity: HostIdentity): boolean {
  const valid = (id: number): boolean => Number.isSafeInteger(id) && id > 0 && id < 0xffff_ffff;
  return valid(identity.uid) && valid(identity.gid);
}

/** Spawns bwrap with prepared args/seccomp bytes and supervises it; exported for tests of bwrap's own failures. */
export async function spawnBwrap(
  bwrapPath: string,
  argsFile: Buffer,
  filter: Buffer,
  commandLine: readonly string[],
  options: RunOptions,
  started = Date.now(),
  launch: BwrapLaunch = {},
): Promise<SandboxRunResult> {
  const requested = launch.maxOpenFiles ?? DEFAULT_SANDBOX_OPEN_FILES;
  if (!Number.isSafeInteger(requested) || requested < 1) return setupFailure(started, `invalid open-file limit ${String(requested)}`);
  if (launch.hostIdentity !== undefined && !isIdentity(launch.hostIdentity)) {
    return setupFailure(started, `host identity ${JSON.stringify(launch.hostIdentity)} is not an unprivileged uid/gid`);
  }
  // prlimit execs bwrap, so an exec failure would look like bwrap's own (no exit record); a missing bwrap is reported
  // as what it is before anything starts.
  try {
    accessSync(bwrapPath, fsConstants.X_OK);
  } catch (error) {
    return spawnFailure(started, bwrapPath, error);
  }
  const headroom = probeDescriptorHeadroom();
  if (headroom !== null) return spawnFailure(started, bwrapPath, headroom);
  // bwrap passes every inherited fd into the sandbox, where a directory fd is a way out (openat through
  // /proc/self/fd/N reaches the host tree). Fds the harness inherited without O_CLOEXEC are replaced by /dev/null
  // at the same number in the child, so nothing of the host's travels in.
  const inheritable = listInheritableFds(BWRAP_FDS.status);
  if (inheritable === null) return setupFailure(started, "cannot list this process's inherited file descriptors (/proc/self/fd)");
  const childFds: Array<"pipe" | "ignore" | number> = ["pipe", "pipe", "pipe", "pipe", "pipe", "pipe"];
  // Only ever lowered: raising the hard limit needs CAP_SYS_RESOURCE, which a containerised root often lacks.
  const maxOpenFiles = Math.min(requested, readHardOpenFileLimit() ?? requested);
  let devNull: number | null = null;
  let child: ChildProcess;
  try {
    devNull = inheritable.length === 0 ? null : openSync("/dev/null", "r");
    for (const fd of inheritable) {
      while (childFds.length < fd) childFds.push("ignore");
      childFds[fd] = devNull ?? "ignore";
    }
    // The limit is set on bwrap itself (soft = hard, so nothing inside can raise it) and inherited by the command:
    // no helper process runs inside the sandbox, and the command stays pid 1 exactly as bwrap execs it.
    child = spawn(PRLIMIT_PATH, [`--nofile=${maxOpenFiles}:${maxOpenFiles}`, "--", bwrapPath, ...commandLine], {
      detached: true,
      env: {},
      stdio: childFds,
      ...(launch.hostIdentity === undefined ? {} : { uid: launch.hostIdentity.uid, gid: launch.hostIdentity.gid }),
    });
  } catch (error) {
    // Out of descriptors before the spawn (EMFILE opening /dev/null) or a synchronous spawn error.
    return spawnFailure(started, bwrapPath, error);
  } finally {
    if (devNull !== null) closeSync(devNull);
  }
  // EMFILE/ENFILE while creating the pipes: Node hands back a child without pid or stdio and emits "error" next tick.
  if (!Array.isArray(child.stdio)) {
    const error = await new Promise<unknown>((resolve) => {
      child.once("error", resolve);
      setTimeout(() => resolve(new Error("spawn returned no stdio")), 1_000).unref();
    });
    return spawnFailure(started, bwrapPath, error);
  }
  const statusChunks: Buffer[] = [];
  const stdio: ReadonlyArray<Readable | Writable | null | undefined> = child.stdio;
  const statusStream = stdio[BWRAP_FDS.status];
  const status = (): BwrapStatus => parseStatus(Buffer.concat(statusChunks).toString("utf8"));
  statusStream?.on("data", (chunk: Buffer) => statusChunks.push(chunk));
  statusStream?.on("error", () => undefined);
  for (const [fd, bytes] of [
    [BWRAP_FDS.args, argsFile],
    [BWRAP_FDS.seccomp, filter],
  ] as const) {
    const stream = stdio[fd];
    // bwrap closing its end early (e.g. it died) is reported by the missing exit record, not here.
    stream?.on("error", () => undefined);
    if (stream !== null && stream !== undefined && "end" in stream) stream.end(bytes);
  }

  const outcome = await superviseChild(child, {
    stdin: options.stdin,
    timeoutMs: options.timeoutMs,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    signal: options.signal,
    maxStdoutBytes: options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES,
    stderrTailBytes: options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES,
    onStdout: options.onStdout,
    stopGracefully: () => {
      const { childPid } = status();
      // Before the command exists there is nothing to ask politely; a SIGTERM the kernel would drop is not asking.
      if (childPid === null) throw new Error("sandbox not started yet");
      if (!sigtermReachesInit(childPid)) throw new Error("the command leaves SIGTERM at its default and is pid 1");
      safeKill(childPid, "SIGTERM");
    },
    killHard: () => killGroup(),
  });
  function killGroup(): void {
    if (child.pid !== undefined) safeKill(-child.pid, "SIGKILL");
    const { childPid, pidNamespace } = status();
    if (childPid !== null)
      void isSandboxInitAlive(childPid, pidNamespace).then((alive) => alive && safeKill(childPid, "SIGKILL"));
  }

  const final = status();
  let setupError: string | null = null;
  let state: SandboxRunState;
  if (outcome.spawnError !== null) {
    state = "spawn-failure";
    setupError = `cannot start ${bwrapPath}: ${outcome.spawnError.message}`;
  } else if (outcome.stopReason === "cancel") state = "cancelled";
  else if (outcome.stopReason === "timeout") state = outcome.hardKilled ? "forced-kill" : "timeout";
  else if (final.exitCode === null) {
    state = "sandbox-setup-failure";
    setupError = `bwrap exited ${outcome.exitCode ?? outcome.signal ?? "?"} without an exit record: the command never ran`;
  } else if (outcome.stdinError !== null) state = "input-failure";
  else state = "exited";

  // --die-with-parent makes the kernel tear the pid namespace down; confirm it rather than assume it.
  if (final.childPid !== null && (await waitForInitGone(final.childPid, final.pidNamespace)) === false) {
    state = "cleanup-failure";
    setupError = `sandbox pid 1 (the command, host pid ${final.childPid}) survived the run`;
  }
  if (outcome.stdioStuck && state === "exited") state = "cleanup-failure";

  return {
    backend: "bwrap",
    state,
    ok: state === "exited" && final.exitCode === 0,
    exitCode: final.exitCode ?? (state === "sandbox-setup-failure" ? null : outcome.exitCode),
    signal: outcome.signal,
    stdout: outcome.stdout,
    stdoutOverflow: outcome.stdoutOverflow,
    stderrTail: outcome.stderrTail,
    durationMs: Date.now() - started,
    setupError,
  };
}

async function waitForInitGone(pid: number, pidNamespace: number | null): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    if (!(await isSandboxInitAlive(pid, pidNamespace))) return true;
    if (attempt === 20) safeKill(pid, "SIGKILL");
    await sleep(50);
  }
  return !(await isSandboxInitAlive(pid, pidNamespace));
}
