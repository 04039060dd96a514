import { realpath } from "node:fs/promises";
import { SANDBOX_HOME, runSandboxed, type SandboxPolicyInput, type SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { GitInvocationError } from "./errors.js";
import type { GitInvocation, GitOutcome, GitRunner } from "./git-runner.js";
import { buildHardenedGitEnv } from "./harden-git.js";
import { DEFAULT_GIT_OUTPUT_LIMIT } from "./host-git-runner.js";
import { planGitBinds, type GitRoots } from "./plan-git-binds.js";

/** Options of the sandboxed runner: which host directories git may touch, and where git and bwrap are. */
export interface SandboxedGitRunnerOptions {
  /** Directories git may write (template and cell parents); bound read-write only when a call works inside one. */
  readonly writableRoots: readonly string[];
  /** Directories git may only read (source repositories); always bound read-only. */
  readonly readOnlyRoots?: readonly string[];
  /** git inside the sandbox (under the read-only `/usr`); default `/usr/bin/git`. */
  readonly gitPath?: string;
  /** The bwrap binary on the host; default sandbox-bwrap's. */
  readonly bwrapPath?: string;
  /** Grace between SIGTERM and SIGKILL on timeout (git as pid 1 leaves SIGTERM at its default, so it is SIGKILLed at once). */
  readonly graceMs?: number;
}

// stderr is diagnostics only (error messages, fsck's "must be silent" check); a bounded tail is enough.
const STDERR_TAIL_BYTES = 256 * 1024;

/**
 * Runs every git call inside `@wfbench/sandbox-bwrap`: no network (only `lo`), the hardened env built from scratch
 * (invocation env passed through, hardening keys last), a tmpfs HOME, and only the granted roots the call needs,
 * bound at their own absolute paths (cwd's root in its mode, roots named in argv read-only). Trusts bwrap and the
 * roots it is given; refuses a cwd outside every root, and throws GitInvocationError for anything but a clean exit.
 */
export function createSandboxedGitRunner(options: SandboxedGitRunnerOptions): GitRunner {
  const roots: GitRoots = { writable: [...options.writableRoots], readOnly: [...(options.readOnlyRoots ?? [])] };
  const gitPath = options.gitPath ?? "/usr/bin/git";
  return { run: (invocation) => runSandboxedGit(invocation, roots, gitPath, options) };
}

async function runSandboxedGit(
  invocation: GitInvocation,
  roots: GitRoots,
  gitPath: string,
  options: SandboxedGitRunnerOptions,
): Promise<GitOutcome> {
  const argv = invocation.argv;
  const plan = planGitBinds(invocation.cwd, argv, roots);
  if (!plan.ok) throw new GitInvocationError("SANITIZER_GIT_PATH_NOT_GRANTED", argv, plan.reason);
  const limit = invocation.maxOutputBytes ?? DEFAULT_GIT_OUTPUT_LIMIT;
  let result: SandboxRunResult;
  try {
    // A root reached through a symlink is bound from its real directory at the path the caller uses, so git sees
    // the same paths it was given (bwrap refuses symlinked mount sources).
    const mounts = await Promise.all(
      plan.binds.map(async (bind) => ({ source: await realpath(bind.path), target: bind.path, mode: bind.mode })),
    );
    const policy: SandboxPolicyInput = {
      workspace: null,
      mounts,
      env: buildHardenedGitEnv(SANDBOX_HOME, invocation.env),
      network: { mode: "none" },
      cwd: invocation.cwd,
    };
    result = await runSandboxed(policy, [gitPath, ...argv], {
      timeoutMs: invocation.timeoutMs,
      graceMs: options.graceMs ?? 1_000,
      stdin: invocation.input ?? "",
      maxStdoutBytes: limit,
      stderrTailBytes: Math.min(limit, STDERR_TAIL_BYTES),
      ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
    });
  } catch (cause) {
    throw new GitInvocationError("SANITIZER_GIT_SANDBOX_FAILED", argv, `cannot sandbox git: ${(cause as Error).message}`, { cause });
  }
  return toOutcome(result, argv, invocation.timeoutMs, limit);
}

function toOutcome(result: SandboxRunResult, argv: readonly string[], timeoutMs: number, limit: number): GitOutcome {
  const stderr = result.stderrTail;
  const describe = (): string => `${result.setupError ?? "no detail"}; stderr: ${stderr.trim().slice(-200) || "(none)"}`;
  // git may exit before reading all of stdin (the host runner ignores EPIPE too); its exit status is what matters.
  const ran = (result.state === "exited" || result.state === "input-failure") && result.exitCode !== null;
  if (ran && result.stdoutOverflow) throw new GitInvocationError("SANITIZER_GIT_OUTPUT_LIMIT", argv, `git output exceeded ${limit} bytes`);
  if (ran && result.exitCode !== null) return { exitCode: result.exitCode, stdout: result.stdout.toString("utf8"), stderr };
  if (result.state === "timeout" || result.state === "forced-kill") {
    throw new GitInvocationError("SANITIZER_GIT_TIMEOUT", argv, `git ${summarize(argv)} exceeded ${timeoutMs} ms (sandbox ${result.state})`);
  }
  if (result.state === "spawn-failure") {
    throw new GitInvocationError("SANITIZER_GIT_SPAWN_FAILED", argv, `could not start the git sandbox: ${describe()}`);
  }
  throw new GitInvocationError("SANITIZER_GIT_SANDBOX_FAILED", argv, `git sandbox ended in state ${result.state}: ${describe()}`);
}

function summarize(argv: readonly string[]): string {
  return argv.filter((a) => !a.includes("=")).slice(-4).join(" ");
}
