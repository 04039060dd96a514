import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitInvocationError } from "./errors.js";
import type { GitInvocation, GitOutcome, GitRunner } from "./git-runner.js";
import { buildHardenedGitEnv } from "./harden-git.js";

/** Default combined stdout+stderr ceiling for one git call. */
export const DEFAULT_GIT_OUTPUT_LIMIT = 64 * 1024 * 1024;

/** Options of the host runner; every field has a safe default. */
export interface HostGitRunnerOptions {
  /** Absolute path of the git binary; never looked up through a caller-controlled PATH. */
  readonly gitPath?: string;
  /** An empty private directory used as HOME; created (0700) when omitted. */
  readonly homeDir?: string;
}

/** A GitRunner plus the cleanup of the private HOME it created. */
export interface HostGitRunner extends GitRunner {
  dispose(): void;
}

/**
 * Runs git directly on the host with no shell, a from-scratch env, a private empty HOME, bounded time and output,
 * killing the whole process group on overrun. Not a sandbox: it trusts the git binary, refuses to inherit any env.
 */
export function createHostGitRunner(options: HostGitRunnerOptions = {}): HostGitRunner {
  const gitPath = options.gitPath ?? "/usr/bin/git";
  let home = options.homeDir;
  let ownsHome = false;
  const homeDir = (): string => {
    if (home === undefined) {
      home = mkdtempSync(join(tmpdir(), "wfbench-git-home-"));
      ownsHome = true;
    }
    return home;
  };
  return {
    run: (invocation) => runHostGit(gitPath, homeDir(), invocation),
    dispose: () => {
      if (ownsHome && home !== undefined) rmSync(home, { recursive: true, force: true });
      home = undefined;
      ownsHome = false;
    },
  };
}

function runHostGit(gitPath: string, home: string, invocation: GitInvocation): Promise<GitOutcome> {
  const limit = invocation.maxOutputBytes ?? DEFAULT_GIT_OUTPUT_LIMIT;
  const argv = invocation.argv;
  return new Promise<GitOutcome>((resolve, reject) => {
    let settled = false;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let total = 0;
    const child = spawn(gitPath, argv, {
      cwd: invocation.cwd,
      env: buildHardenedGitEnv(home, invocation.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
      windowsHide: true,
    });
    const killGroup = (): void => {
      // Clone and repack fork helpers (index-pack, pack-objects); the negative pid reaches all of them.
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      }
    };
    const fail = (error: GitInvocationError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup();
      reject(error);
    };
    const timer = setTimeout(() => {
      fail(
        new GitInvocationError(
          "SANITIZER_GIT_TIMEOUT",
          argv,
          `git ${argv.filter((a) => !a.includes("=")).slice(-4).join(" ")} exceeded ${invocation.timeoutMs} ms`,
        ),
      );
    }, invocation.timeoutMs);
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        fail(new GitInvocationError("SANITIZER_GIT_OUTPUT_LIMIT", argv, `git output exceeded ${limit} bytes`));
        return;
      }
      sink.push(chunk);
    };
    child.stdout.on("data", collect(stdout));
    child.stderr.on("data", collect(stderr));
    child.stdin.on("error", () => {
      // git may exit before reading all of stdin; the exit status reports what matters.
    });
    child.on("error", (error) => {
      fail(new GitInvocationError("SANITIZER_GIT_SPAWN_FAILED", argv, `could not start ${gitPath}: ${error.message}`, { cause: error }));
    });
    child.on("close", (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        exitCode: code ?? 128 + signalNumber(signal),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
    child.stdin.end(invocation.input ?? "");
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const table: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };
  return signal === null ? 0 : (table[signal] ?? 0);
}
