import { OracleError, OracleRunInfrastructureError } from "./errors.js";
import type { OracleCommandRunner } from "./oracle-command-runner.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";
import { runBlackBoxOracle } from "./run-black-box-oracle.js";
import { runStagedCommand } from "./run-staged-command.js";
import type { HiddenOracleVerdict } from "./run-staged-command.js";

export type { HiddenOracleVerdict } from "./run-staged-command.js";

/** Options of one hidden-oracle run. */
export interface RunHiddenOracleOptions {
  readonly workspaceDir: string;
  readonly privateRoot: string;
  readonly runner: OracleCommandRunner;
  /** Bound of the oracle command, and (black-box) of the candidate command before it. */
  readonly timeoutMs: number;
  /** Extra variables for the command(s) (e.g. the review-output path); the oracle root variables always win. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly randomToken?: () => string;
}

/**
 * Judges the candidate after the model session has exited. In-process (the default): stages the snapshot beside the
 * candidate, runs `/bin/sh -c <command>` through the injected runner (workspace read-only, no network, oracle root
 * variables under both names), re-verifies every staged byte and the mountpoint and removes both. Black-box: first
 * runs the `candidate` command without any stage, then the oracle command over its captured output only (see
 * run-black-box-oracle.ts). Trusts the runner only for terminal states, exit codes and (black-box) the candidate's
 * bounded stdout, which it never parses; the oracle command's stdout and stderr are never requested, returned or
 * attached to an error. A tampered stage or mountpoint voids the verdict even when the command passed.
 * @throws {OracleError} staging, tamper, cleanup, or `ORACLE_RUN_INFRASTRUCTURE` for any state but a plain exit.
 */
export async function runHiddenOracle(
  snapshot: OracleSnapshot,
  options: RunHiddenOracleOptions,
): Promise<HiddenOracleVerdict> {
  if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0)
    throw new OracleError("ORACLE_STAGE_INPUT_INVALID", "oracle timeout must be a positive whole number of ms");
  if (options.signal?.aborted) throw new OracleRunInfrastructureError("cancelled");
  if (snapshot.mode === "black-box") return runBlackBoxOracle(snapshot, options);
  return runStagedCommand(snapshot, {
    workspaceDir: options.workspaceDir,
    privateRoot: options.privateRoot,
    runner: options.runner,
    timeoutMs: options.timeoutMs,
    viewRoot: options.runner.workspaceView,
    view: "candidate-workspace",
    env: { ...options.extraEnv },
    signal: options.signal,
    randomToken: options.randomToken,
  });
}
