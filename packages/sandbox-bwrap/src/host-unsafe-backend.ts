import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import { removeTree } from "@wfbench/durable-fs";
import { assertRunBounds, parseSandboxPolicy, resolveSandboxCwd } from "./build-argv.js";
import { checkMountSources } from "./check-mount-sources.js";
import { SandboxPolicyError, UnsafeBackendRefusedError } from "./errors.js";
import { buildHostPathMap, rewriteSandboxText, toHostPath, type HostPathMap } from "./host-paths.js";
import {
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_STDOUT_BYTES,
  DEFAULT_STDERR_TAIL_BYTES,
  type RunOptions,
  type SandboxRunResult,
  type SandboxRunState,
} from "./run-result.js";
import type { SandboxPolicy, SandboxPolicyInput } from "./schema.js";
import { superviseChild } from "./supervise-process.js";
import { lockTreeReadOnly } from "./tree-modes.js";

/** The exact acknowledgement string a caller must pass to get a backend with no isolation. */
export const UNSAFE_NO_BWRAP = "UNSAFE_NO_BWRAP";

/** Why the host-unsafe backend may be constructed; the caller reads its own environment and passes it in. */
export interface HostUnsafeBackendOptions {
  /** Must be exactly "UNSAFE_NO_BWRAP": nobody gets this backend by accident. */
  readonly acknowledge: typeof UNSAFE_NO_BWRAP;
  /** The value of the caller's CI variable; any non-empty value refuses the backend. */
  readonly ci: string | undefined;
  /** True when the caller will apply a promotion; the backend refuses. */
  readonly applyMode: boolean;
}

/** A backend that runs commands directly on the host. NOT A SECURITY BOUNDARY: no isolation of any kind. */
export interface HostUnsafeBackend {
  readonly kind: "host-unsafe";
  readonly isSecurityBoundary: false;
  /** Runs `argv` on the host with the policy's paths rewritten to host paths; same terminal states as bwrap. */
  run(policy: SandboxPolicyInput | SandboxPolicy, argv: readonly string[], options: RunOptions): Promise<SandboxRunResult>;
}

// These only make sense with Claude Code's own sandbox and our shell-prefix wrapper, neither exists on the host.
const DROPPED_ENV = new Set(["CLAUDE_CODE_SUBPROCESS_ENV_SCRUB", "CLAUDE_CODE_SHELL_PREFIX"]);

function hostEnv(env: Readonly<Record<string, string>>, map: HostPathMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (DROPPED_ENV.has(name)) continue;
    const rewritten = rewriteSandboxText(value, map);
    out[name] = name === "PATH" ? rewritten.split(":").filter((dir) => dir !== "" && existsSync(dir)).join(":") : rewritten;
  }
  return out;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function runOnHost(
  policyInput: SandboxPolicyInput | SandboxPolicy,
  argv: readonly string[],
  options: RunOptions,
): Promise<SandboxRunResult> {
  const started = Date.now();
  const policy = parseSandboxPolicy(policyInput);
  assertRunBounds(options);
  if (argv.length === 0 || argv[0] === "") throw new SandboxPolicyError("SANDBOX_ARGV_INVALID", "command argv must not be empty");
  const base = {
    backend: "host-unsafe" as const,
    ok: false,
    exitCode: null,
    signal: null,
    stdout: Buffer.alloc(0),
    stdoutOverflow: false,
    stderrTail: "",
  };
  if (options.signal?.aborted === true) return { ...base, state: "cancelled", durationMs: 0, setupError: "cancelled before start" };
  const sources = await checkMountSources(policy);
  if (!sources.ok) return { ...base, state: "sandbox-setup-failure", durationMs: Date.now() - started, setupError: sources.error.join("; ") };

  const scratch = await mkdtemp(join(tmpdir(), "wfbench-host-unsafe-"));
  const dirs = { home: join(scratch, "home"), tmp: join(scratch, "tmp") };
  await mkdir(dirs.home, { mode: 0o700 });
  await mkdir(dirs.tmp, { mode: 0o700 });
  const map = buildHostPathMap(policy, dirs);
  const restores: Array<() => Promise<void>> = [];
  try {
    if (policy.workspace !== null) {
      const { hostPath, mode, readOnlySubpaths } = policy.workspace;
      if (mode === "ro") restores.push(await lockTreeReadOnly(hostPath));
      else for (const sub of readOnlySubpaths) restores.push(await lockTreeReadOnly(`${hostPath}/${sub}`));
    }
    // Shared read-only mounts (runtimes, binaries) are left alone: concurrent runs would restore each other's locks.

    const [command, ...args] = argv.map((a, i) => (i === 0 ? toHostPath(a, map) : rewriteSandboxText(a, map)));
    const child = spawn(command ?? "", args, {
      cwd: toHostPath(resolveSandboxCwd(policy), map),
      detached: true,
      env: hostEnv(policy.env, map),
      stdio: ["pipe", "pipe", "pipe"],
    });
    // A text prompt names sandbox paths (the review artifact, /workspace); on the host they are the mapped host paths.
    const stdin = typeof options.stdin === "string" ? rewriteSandboxText(options.stdin, map) : options.stdin;
    const outcome = await superviseChild(child, {
      stdin,
      timeoutMs: options.timeoutMs,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
      signal: options.signal,
      maxStdoutBytes: options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES,
      stderrTailBytes: options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES,
      onStdout: options.onStdout,
      stopGracefully: () => {
        if (!killGroup(child.pid, "SIGTERM")) throw new Error("process group already gone");
      },
      killHard: () => void killGroup(child.pid, "SIGKILL"),
    });
    // A quiet descendant left in the group after the leader exited is killed, and the run says so.
    const survivors = outcome.spawnError === null && killGroup(child.pid, "SIGKILL");
    let state: SandboxRunState;
    if (outcome.spawnError !== null) state = "spawn-failure";
    else if (outcome.stopReason === "cancel") state = "cancelled";
    else if (outcome.stopReason === "timeout") state = outcome.hardKilled ? "forced-kill" : "timeout";
    else if (outcome.stdioStuck) state = "cleanup-failure";
    else if (survivors) state = "forced-kill";
    else if (outcome.stdinError !== null) state = "input-failure";
    else state = "exited";
    const signalNumber = outcome.signal === null ? null : osConstants.signals[outcome.signal];
    const exitCode = outcome.exitCode ?? (signalNumber === null || signalNumber === undefined ? null : 128 + signalNumber);
    return {
      backend: "host-unsafe",
      state,
      ok: state === "exited" && exitCode === 0,
      exitCode,
      signal: outcome.signal,
      stdout: outcome.stdout,
      stdoutOverflow: outcome.stdoutOverflow,
      stderrTail: outcome.stderrTail,
      durationMs: Date.now() - started,
      setupError: outcome.spawnError === null ? null : `cannot start ${command ?? ""}: ${outcome.spawnError.message}`,
    };
  } finally {
    for (const restore of restores.reverse()) await restore();
    // The command may have left 0555 directories (a copy of a locked tree) or a chain past PATH_MAX.
    await removeTree(scratch);
  }
}

/**
 * Creates the host-unsafe backend (`UNSAFE_NO_BWRAP`): same interface as bwrap, NO isolation — commands run as the
 * harness user with full filesystem and network access; the read-only workspace is only emulated with chmod. Sandbox
 * paths in argv, env, cwd and a text stdin (the prompt) are rewritten to host paths.
 * @throws {UnsafeBackendRefusedError} when CI is set, in apply mode, or without the exact acknowledgement.
 */
export function createHostUnsafeBackend(options: HostUnsafeBackendOptions): HostUnsafeBackend {
  if (options.acknowledge !== UNSAFE_NO_BWRAP)
    throw new UnsafeBackendRefusedError(`the host-unsafe backend needs acknowledge: "${UNSAFE_NO_BWRAP}"`);
  if (options.ci !== undefined && options.ci !== "")
    throw new UnsafeBackendRefusedError("the host-unsafe backend is forbidden when CI is set: install bubblewrap and use the bwrap backend");
  if (options.applyMode)
    throw new UnsafeBackendRefusedError("the host-unsafe backend is forbidden in apply mode: promotions must be measured inside bwrap");
  return { kind: "host-unsafe", isSecurityBoundary: false, run: runOnHost };
}
