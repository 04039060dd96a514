import { OracleRunInfrastructureError } from "./errors.js";
import { ORACLE_ENV_VAR, ORACLE_ENV_VAR_ALIAS, ORACLE_OUTPUT } from "./limits.js";
import type { OracleCommandRunner, OracleRunRequest } from "./oracle-command-runner.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";
import { removeStagedOracle } from "./remove-staged-oracle.js";
import { OracleRunReportSchema } from "./schema.js";
import type { OracleRunReport } from "./schema.js";
import { stageOracle } from "./stage-oracle.js";
import { verifyOracleMountpoint, verifyStagedOracle } from "./verify-staged-oracle.js";

/**
 * The only facts kept from a hidden-oracle run: pass/fail, its outcome kind and fixed `oracle_output` text. The exit
 * code is dropped like stdout/stderr: code that ran beside the hidden tests chose it.
 */
export interface HiddenOracleVerdict {
  readonly passed: boolean;
  readonly outcome: "oracle-passed" | "oracle-failed";
  readonly output: typeof ORACLE_OUTPUT.passed | typeof ORACLE_OUTPUT.failed;
  readonly oracleDigest: string;
}

/** Where and how one staged oracle command runs. */
export interface StagedCommandOptions {
  /** The directory the stage's mountpoint is created in: the candidate's workspace, or a black-box run's view. */
  readonly workspaceDir: string;
  readonly privateRoot: string;
  readonly runner: OracleCommandRunner;
  readonly timeoutMs: number;
  /** Where the command sees `workspaceDir` (null: at its host path). */
  readonly viewRoot: string | null;
  readonly view: NonNullable<OracleRunRequest["view"]>;
  /** Variables for the command; the oracle root variables always win. */
  readonly env: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
  readonly randomToken?: (() => string) | undefined;
}

type RunOutcome = { readonly report: OracleRunReport } | { readonly infrastructure: string };

async function runOnce(runner: OracleCommandRunner, request: OracleRunRequest): Promise<RunOutcome> {
  let raw: unknown;
  try {
    raw = await runner.run(request);
  } catch {
    // A runner's exception may quote the command's output; only the fact that it threw survives.
    return { infrastructure: "runner-error" };
  }
  const parsed = OracleRunReportSchema.safeParse(raw);
  return parsed.success ? { report: parsed.data } : { infrastructure: "invalid-runner-report" };
}

/** The verdict of a finished oracle run (or of a black-box candidate that failed on its own before it). */
export function verdictOf(snapshot: OracleSnapshot, passed: boolean): HiddenOracleVerdict {
  return {
    passed,
    outcome: passed ? "oracle-passed" : "oracle-failed",
    output: passed ? ORACLE_OUTPUT.passed : ORACLE_OUTPUT.failed,
    oracleDigest: snapshot.binding.oracle_digest,
  };
}

/**
 * Stages the snapshot into `workspaceDir`'s fresh mountpoint, runs `/bin/sh -c <command>` through the runner
 * (read-only, no network, oracle root variables under both names), then re-verifies every staged byte and the
 * mountpoint and removes both. Trusts the runner only for a terminal state and an exit code.
 * @throws {OracleError} staging, tamper, cleanup, or `ORACLE_RUN_INFRASTRUCTURE` for any state but a plain exit.
 */
export async function runStagedCommand(snapshot: OracleSnapshot, options: StagedCommandOptions): Promise<HiddenOracleVerdict> {
  const staged = await stageOracle(snapshot, {
    workspaceDir: options.workspaceDir,
    privateRoot: options.privateRoot,
    ...(options.randomToken ? { randomToken: options.randomToken } : {}),
  });
  const rootInView = `${options.viewRoot ?? options.workspaceDir}/${staged.name}`;
  const request: OracleRunRequest = {
    argv: ["/bin/sh", "-c", snapshot.command],
    workspace: { hostPath: options.workspaceDir, readOnly: true },
    mount: { source: staged.stageDir, hostTarget: staged.mountpointPath, name: staged.name, readOnly: true },
    network: "none",
    env: { ...options.env, [ORACLE_ENV_VAR]: rootInView, [ORACLE_ENV_VAR_ALIAS]: rootInView },
    timeoutMs: options.timeoutMs,
    output: "discard",
    view: options.view,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const outcome = await runOnce(options.runner, request);

  // Verification and cleanup always run; the most serious failure wins, a tampered stage first.
  const failures: unknown[] = [];
  for (const step of [
    () => verifyStagedOracle(snapshot, staged),
    () => verifyOracleMountpoint(staged),
    () => removeStagedOracle(staged),
  ]) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
  if ("infrastructure" in outcome) throw new OracleRunInfrastructureError(outcome.infrastructure);
  const { state, exitCode } = outcome.report;
  if (state !== "exited" || exitCode === null) throw new OracleRunInfrastructureError(state);
  return verdictOf(snapshot, exitCode === 0);
}
