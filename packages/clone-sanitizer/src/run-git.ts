import { GitCommandError, SanitizerError } from "./errors.js";
import type { GitOutcome, GitRunner } from "./git-runner.js";
import { hardenGitArgv } from "./harden-git.js";

/** Deadlines for the sanitizer's git calls; long ones (clone, repack) get `longMs`. */
export interface GitTimeouts {
  readonly shortMs: number;
  readonly longMs: number;
}

/** Spec: clone, repack and prune each run with a 600 s bound. */
export const DEFAULT_GIT_TIMEOUTS: GitTimeouts = { shortMs: 120_000, longMs: 600_000 };

/** A runner plus the deadlines every sanitizer step uses. */
export interface GitContext {
  readonly runner: GitRunner;
  readonly timeouts: GitTimeouts;
}

/** Per-call options of runGit. */
export interface RunGitOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
  /** Exit codes treated as success; anything else throws GitCommandError. Default [0]. */
  readonly accept?: readonly number[];
  readonly long?: boolean;
  readonly maxOutputBytes?: number;
}

/**
 * Run one hardened git call; throws GitCommandError for an exit status outside `accept`. Filter drivers the
 * repository's config defines are switched off first (their names are unknowable to a static `-c` list).
 */
export async function runGit(
  ctx: GitContext,
  cwd: string,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitOutcome> {
  const driverEnv = await disableFilterDrivers(ctx, cwd);
  return runHardened(ctx, cwd, args, { ...options, env: { ...options.env, ...driverEnv } });
}

const MAX_FILTER_DRIVERS = 256;

/**
 * Config overrides (as GIT_CONFIG_COUNT/KEY/VALUE, immune to `=` or dots in a driver name) that empty every
 * filter driver the repository names, so in-tree .gitattributes can never reach a configured command.
 */
async function disableFilterDrivers(ctx: GitContext, cwd: string): Promise<Record<string, string>> {
  const listed = await runHardened(ctx, cwd, ["config", "--null", "--name-only", "--get-regexp", "^filter\\."], {
    accept: [0, 1, 128],
  });
  if (listed.exitCode !== 0) return {};
  const drivers = new Set<string>();
  for (const name of listed.stdout.split("\0")) {
    const lastDot = name.lastIndexOf(".");
    if (!name.startsWith("filter.") || lastDot <= "filter.".length) continue;
    drivers.add(name.slice("filter.".length, lastDot));
  }
  if (drivers.size > MAX_FILTER_DRIVERS) {
    throw new SanitizerError("SANITIZER_HOSTILE_CONFIG", `repository config defines ${drivers.size} filter drivers`);
  }
  const env: Record<string, string> = {};
  let count = 0;
  for (const driver of drivers) {
    for (const [key, value] of [["clean", ""], ["smudge", ""], ["process", ""], ["required", "false"]] as const) {
      env[`GIT_CONFIG_KEY_${count}`] = `filter.${driver}.${key}`;
      env[`GIT_CONFIG_VALUE_${count}`] = value;
      count += 1;
    }
  }
  if (count > 0) env["GIT_CONFIG_COUNT"] = String(count);
  return env;
}

/**
 * One hardened git call on a git directory whose config the harness itself wrote and nothing else has touched since
 * (the harness git dir; a clone being sanitized once its config is rewritten): no repository config can name a filter
 * driver there, so runGit's listing of them (a second sandbox start-up per call) is skipped. Anything else goes through
 * runGit.
 */
export async function runGitOnOwnConfig(ctx: GitContext, cwd: string, args: readonly string[], options: RunGitOptions = {}): Promise<GitOutcome> {
  return runHardened(ctx, cwd, args, options);
}

async function runHardened(
  ctx: GitContext,
  cwd: string,
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitOutcome> {
  const argv = hardenGitArgv(args);
  const outcome = await ctx.runner.run({
    argv,
    cwd,
    timeoutMs: options.long === true ? ctx.timeouts.longMs : ctx.timeouts.shortMs,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
  });
  const accept = options.accept ?? [0];
  if (!accept.includes(outcome.exitCode)) throw new GitCommandError(args, outcome.exitCode, outcome.stderr);
  return outcome;
}
