import { randomBytes } from "node:crypto";
import { chmod, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileExclusive } from "@wfbench/durable-fs";
import { z } from "zod";
import { OracleCleanupError, OracleError, OracleRunInfrastructureError, OracleStageCollisionError, OracleStageWriteError } from "./errors.js";
import {
  CANDIDATE_OUTPUT_DIR,
  CANDIDATE_OUTPUT_ENV_VAR,
  CANDIDATE_VIEW_PREFIX,
  MAX_CANDIDATE_STDOUT_BYTES,
} from "./limits.js";
import type { CandidateRunRequest, OracleCommandRunner } from "./oracle-command-runner.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";
import type { RunHiddenOracleOptions } from "./run-hidden-oracle.js";
import { runStagedCommand, verdictOf } from "./run-staged-command.js";
import type { HiddenOracleVerdict } from "./run-staged-command.js";
import { checkStageRoots } from "./stage-oracle.js";

/** What a candidate runner reports; unknown keys are stripped, and stdout must be bytes. */
const CandidateRunReportSchema = z.object({
  state: z.string().min(1),
  exitCode: z.number().int().nullable(),
  stdout: z.instanceof(Uint8Array),
  stdoutOverflow: z.boolean(),
});
type CandidateRunReport = z.infer<typeof CandidateRunReportSchema>;

// The candidate's own code ran out of time (a `forced-kill` is bwrap's answer to a timeout of a command that leaves
// SIGTERM at its default): that is the candidate failing the task, not the harness failing to judge it.
const CANDIDATE_FAULT_STATES: ReadonlySet<string> = new Set(["timeout", "forced-kill"]);

async function runCandidateOnce(
  runner: OracleCommandRunner,
  request: CandidateRunRequest,
): Promise<CandidateRunReport | { readonly infrastructure: string }> {
  if (runner.runCandidate === undefined) throw new OracleError("ORACLE_RUNNER_UNSUPPORTED", "this oracle runner cannot run a black-box candidate");
  let raw: unknown;
  try {
    raw = await runner.runCandidate(request);
  } catch {
    return { infrastructure: "candidate-runner-error" };
  }
  const parsed = CandidateRunReportSchema.safeParse(raw);
  return parsed.success ? parsed.data : { infrastructure: "invalid-candidate-report" };
}

/**
 * The harness-owned view a black-box oracle command sees instead of a workspace: `<privateRoot>/.wfbench-candidate-
 * <32 hex>/candidate-output/{stdout,status.json}` (dirs 0700, files 0400, exclusive, fsynced); the stage's
 * mountpoint is created beside `candidate-output` by the ordinary staging.
 */
async function writeCandidateView(privateRoot: string, report: CandidateRunReport & { exitCode: number }): Promise<string> {
  const viewDir = join(privateRoot, `${CANDIDATE_VIEW_PREFIX}${randomBytes(16).toString("hex")}`);
  try {
    await mkdir(viewDir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code === "EEXIST")
      throw new OracleStageCollisionError(`candidate view ${viewDir} already exists; refusing to reuse it`, { cause: error });
    throw new OracleStageWriteError(`cannot create the candidate view ${viewDir}`, { cause: error });
  }
  try {
    await chmod(viewDir, 0o700);
    const outputDir = join(viewDir, CANDIDATE_OUTPUT_DIR);
    await mkdir(outputDir, { mode: 0o700 });
    await chmod(outputDir, 0o700);
    await writeFileExclusive(join(outputDir, "stdout"), report.stdout, { mode: 0o400 });
    // Written by the harness from facts it measured; the candidate chose none of these bytes.
    const status = { schema_version: 1, exit_code: report.exitCode, stdout_bytes: report.stdout.byteLength };
    await writeFileExclusive(join(outputDir, "status.json"), `${JSON.stringify(status)}\n`, { mode: 0o400 });
  } catch (error) {
    await rm(viewDir, { recursive: true, force: true }).catch(() => undefined);
    throw new OracleStageWriteError(`cannot write the candidate view ${viewDir}`, { cause: error });
  }
  return viewDir;
}

async function removeView(viewDir: string): Promise<void> {
  try {
    // Owner write lets a non-root harness unlink the 0400 files; the view never held a link (the harness made it).
    await chmod(join(viewDir, CANDIDATE_OUTPUT_DIR), 0o700).catch(() => undefined);
    await rm(viewDir, { recursive: true, force: true });
  } catch (error) {
    throw new OracleCleanupError(`cannot remove the candidate view ${viewDir}`, { cause: error });
  }
}

/**
 * A black-box oracle (reference §6.2 order, one sandbox more): (1) the `candidate` command runs with the workspace
 * read-only, no network, no stage anywhere (it is not even written yet) and stdout bounded to 1 MiB; (2) its stdout
 * and exit code are written to a harness-owned view; (3) the snapshot is staged into that view and the oracle
 * command runs over it, with `WFBENCH_CANDIDATE_OUTPUT` pointing at the output and no candidate workspace mounted.
 * Trusts the candidate's stdout for nothing: it is counted and copied, never parsed. A candidate that times out or
 * overflows its stdout bound fails (it is the candidate's fault); a cancelled or broken candidate sandbox throws.
 * @throws {OracleError} ORACLE_RUNNER_UNSUPPORTED for a runner without `runCandidate`, ORACLE_RUN_INFRASTRUCTURE
 * for a candidate run that ended in a harness state, and everything `runStagedCommand` throws.
 */
export async function runBlackBoxOracle(snapshot: OracleSnapshot, options: RunHiddenOracleOptions): Promise<HiddenOracleVerdict> {
  if (snapshot.candidate === null) throw new OracleError("ORACLE_SNAPSHOT_INVALID", "a black-box snapshot has no candidate command");
  // The same roots staging will demand, checked before any candidate code runs.
  await checkStageRoots(options.workspaceDir, options.privateRoot);
  const outcome = await runCandidateOnce(options.runner, {
    argv: ["/bin/sh", "-c", snapshot.candidate],
    workspace: { hostPath: options.workspaceDir, readOnly: true },
    network: "none",
    env: { ...options.extraEnv },
    timeoutMs: options.timeoutMs,
    maxStdoutBytes: MAX_CANDIDATE_STDOUT_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if ("infrastructure" in outcome) throw new OracleRunInfrastructureError(outcome.infrastructure);
  if (outcome.state === "cancelled" || options.signal?.aborted) throw new OracleRunInfrastructureError("cancelled");
  if (CANDIDATE_FAULT_STATES.has(outcome.state) || outcome.stdoutOverflow || outcome.stdout.byteLength > MAX_CANDIDATE_STDOUT_BYTES)
    return verdictOf(snapshot, false);
  if (outcome.state !== "exited" || outcome.exitCode === null) throw new OracleRunInfrastructureError(`candidate-${outcome.state}`);

  const viewDir = await writeCandidateView(options.privateRoot, { ...outcome, exitCode: outcome.exitCode });
  const viewRoot = options.runner.outputView ?? viewDir;
  let verdict: HiddenOracleVerdict;
  try {
    verdict = await runStagedCommand(snapshot, {
      workspaceDir: viewDir,
      privateRoot: options.privateRoot,
      runner: options.runner,
      timeoutMs: options.timeoutMs,
      viewRoot,
      view: "candidate-output",
      env: { ...options.extraEnv, [CANDIDATE_OUTPUT_ENV_VAR]: `${viewRoot}/${CANDIDATE_OUTPUT_DIR}` },
      signal: options.signal,
      randomToken: options.randomToken,
    });
  } catch (error) {
    await removeView(viewDir).catch(() => undefined);
    throw error;
  }
  await removeView(viewDir);
  return verdict;
}
