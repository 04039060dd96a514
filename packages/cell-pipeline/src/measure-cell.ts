import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { writeFileExclusive } from "@wfbench/durable-fs";
import { ORACLE_OUTPUT, createBwrapOracleRunner, isOracleError, readReviewLabels, runHiddenOracle } from "@wfbench/oracle-snapshot";
import { REVIEW_OUTPUT_ENV_VAR, SANDBOX_REVIEW_OUTPUT, SANDBOX_REVIEW_OUTPUT_PATH } from "@wfbench/review-scoring";
import { runSandboxed, type Mount } from "@wfbench/sandbox-bwrap";
import { redactText } from "@wfbench/redact";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import type { RunCellInput } from "./cell-input.js";
import { computeSkillFingerprint } from "./compute-skill-fingerprint.js";
import { TASK_COMMANDS_PHASE, recordPhase, timeEachCall, timePhase } from "./time-phase.js";
import { recordFields, type CellDraft } from "./empty-row.js";
import { CellPipelineError } from "./errors.js";
import { buildWorkspaceGitEnvForSandbox, formatUndiffedMarker, measureWorkspace } from "./inspect-workspace.js";
import type { MeasuredFacts } from "./judge-cell.js";
import type { PreparedCell } from "./prepare-cell.js";
import { copyReviewArtifact, scoreReviewArtifact } from "./score-review-artifact.js";
import { resetWorkspaceGit } from "./session-dirs.js";

const VERIFY_TAIL_CHARS = 4000;

/** The review artifact's in-sandbox path under both env names (WFBENCH_* and the original GITNEXUS_BENCH_* alias). */
const REVIEW_OUTPUT_ENV = { [REVIEW_OUTPUT_ENV_VAR]: SANDBOX_REVIEW_OUTPUT_PATH, WFBENCH_REVIEW_OUTPUT: SANDBOX_REVIEW_OUTPUT_PATH };

async function runVerify(prepared: PreparedCell, command: string, timeoutMs: number, sandbox: typeof runSandboxed, signal?: AbortSignal, reviewOutputDir?: string): Promise<{ passed: boolean; output: string }> {
  const workspace = prepared.workspace;
  // Review verify reads the artifact through a read-only mount of its directory (reference §6.2).
  const mounts: Mount[] = [...prepared.dependencyMounts, ...(reviewOutputDir === undefined ? [] : [{ source: reviewOutputDir, target: SANDBOX_REVIEW_OUTPUT, mode: "ro" as const }])];
  const base = { ...buildSandboxEnv(), ...buildWorkspaceGitEnvForSandbox() };
  const env = reviewOutputDir === undefined ? base : { ...base, ...REVIEW_OUTPUT_ENV };
  const result = await sandbox(
    { workspace: { hostPath: workspace, mode: "ro" }, mounts, tmpfs: [...prepared.dependencyTmpfs], env, network: { mode: "none" } },
    ["/bin/sh", "-c", command],
    { timeoutMs, maxStdoutBytes: 1024 * 1024, ...(signal === undefined ? {} : { signal }) },
  );
  const state = result.state === "exited" ? `[verify exited ${String(result.exitCode)}]` : `[verify ${result.state}]`;
  const text = `${result.stdout.toString("utf8")}${result.stderrTail}`;
  return { passed: result.ok, output: `${text.slice(-VERIFY_TAIL_CHARS)}\n${state}` };
}

/**
 * The patch as stored: every known secret of the cell (and the redactor's own patterns) replaced. Latin-1 maps each
 * byte to one char and back, so the bytes of non-UTF-8 files survive; a secret inside a binary file's base85 hunk is
 * not recognised (nor would it be readable there).
 */
export function redactPatch(patch: Buffer, secrets: readonly string[]): Buffer {
  const text = patch.toString("latin1");
  const redacted = redactText(text, secrets);
  return redacted === text ? patch : Buffer.from(redacted, "latin1");
}

async function writePatch(outDir: string, name: string, patch: Buffer): Promise<string> {
  // Exclusive, no-follow, 0600, file and directory fsynced: the row names the patch once this returns.
  await writeFileExclusive(join(outDir, name), patch, { mode: 0o600 });
  return name;
}

/** A cell whose sessions ran to the end, ready to be measured. */
export interface MeasureCellInput {
  readonly input: RunCellInput;
  readonly prepared: PreparedCell;
  readonly evaluatedSkills: readonly string[];
  /** The private review-output directory of a review arm, null for the others. */
  readonly reviewDir: string | null;
  /** `<task>-<arm>-run<N>`: the stem of the patch and review artifact names. */
  readonly label: string;
  readonly secrets: readonly string[];
}

/** What measuring found that judging needs (the session facts and the arm kind come from elsewhere). */
export type Measurement = Pick<MeasuredFacts, "skillsChanged" | "verifyPassed" | "oraclePassed" | "reviewInvalid" | "diffUnchanged" | "workspaceInvalid" | "oracleUnavailable">;

// The oracle ran the candidate's code and it never finished (an endless loop, a hang): like a verify that times out,
// a failed oracle, not an environment failure. The oracle's stage checks ran before this error was thrown.
function ranOutOfTime(error: unknown): string | null {
  if (!isOracleError(error) || error.code !== "ORACLE_RUN_INFRASTRUCTURE") return null;
  const state = (error as { state?: unknown }).state;
  return state === "timeout" || state === "forced-kill" ? state : null;
}

// The snapshot could not be read, staged or launched for a reason of the host (EIO, ENOSPC, bwrap missing): the
// oracle never judged the candidate. Tampering and collisions stay the candidate's (attributeFailure), a timeout stays
// a failed oracle, and a cleanup failure after a verdict stays the harness's.
const ORACLE_UNAVAILABLE_CODES = new Set(["ORACLE_READ_FAILED", "ORACLE_STAGE_INPUT_INVALID", "ORACLE_STAGE_WRITE_FAILED", "ORACLE_RUN_INFRASTRUCTURE"]);

/** Why an oracle failure means no verdict (host could not read, stage or launch it), or null for any other error. Pure. */
export function describeOracleUnavailable(error: unknown): string | null {
  if (!isOracleError(error) || !ORACLE_UNAVAILABLE_CODES.has(error.code)) return null;
  return `${error.code}: ${error.message}`;
}

function isRefusal(error: unknown): error is CellPipelineError {
  return error instanceof CellPipelineError && error.code === "CELL_PIPELINE_WORKSPACE_REFUSED";
}

/**
 * Measures a cell after its model exited: the workspace's `.git` reset to the harness's copy (every git below,
 * verify's and the oracle's included, reads only that, with attributes and drivers off), the skill fingerprint again,
 * the visible verify (workspace read-only, no network), the hidden oracle staged only now (or, for a review arm, the artifact scored against labels read only
 * now, and copied out), churn and the patch (redacted, written 0600, exclusive), and the diff digest again. Writes each
 * measurement into the draft as soon as it is known; decides nothing (judgeCell does). git refusing the workspace
 * after the session (a file it cannot read, a tree too large to list) is returned as `workspaceInvalid` (churn and
 * patch then stay unmeasured); a hidden oracle that times out on the candidate's code is a failed oracle; a snapshot
 * the host could not read, stage or launch is returned as `oracleUnavailable` (a valid negative, never a pass); other
 * environment failures throw;
 * hidden labels that do not parse throw CELL_PIPELINE_REVIEW_LABELS_INVALID (a harness fault).
 */
export async function measureCell(cell: MeasureCellInput, draft: CellDraft): Promise<Measurement> {
  const { input, prepared, secrets } = cell;
  const { workspace, baseSha } = prepared;
  const sandbox = input.backend?.run ?? runSandboxed;
  // Verify and the oracle's runs are the task's own commands; the harness's git below is not.
  const taskCommand = timeEachCall(draft, TASK_COMMANDS_PHASE, sandbox);
  // Every git from here on (verify, oracle, churn, patch, digest) reads the harness's copy, never the session's .git.
  await resetWorkspaceGit(workspace, prepared.harnessGit, prepared.privateRoot);
  const skillsAfter = await computeSkillFingerprint(workspace, cell.evaluatedSkills).catch(() => "unreadable");

  const verify = await timePhase(draft, "verify", () => runVerify(prepared, input.task.verify, input.timeoutMs, taskCommand, input.signal, cell.reviewDir ?? undefined));
  const verifyOutput = redactText(verify.output, secrets);
  recordFields(draft, { authored_tests_passed: verify.passed, authored_test_output: verifyOutput, verify_output: verifyOutput });
  let verdict: { passed: boolean; output: string };
  let reviewInvalid: string | null = null;
  let unavailable: string | null = null;
  if (cell.reviewDir !== null) {
    // The review "oracle" is the scoring (reference §5.1): labels come from the snapshot captured before the sweep
    // and are read only now, after the model exited; they never enter a sandbox the model can see.
    const labels = readReviewLabels(input.oracle);
    if (!labels.ok) throw new CellPipelineError("CELL_PIPELINE_REVIEW_LABELS_INVALID", labels.error.message);
    const reviewDir = cell.reviewDir;
    const scored = await timePhase(draft, "oracle", async () => scoreReviewArtifact(reviewDir, labels.value));
    verdict = { passed: scored.oraclePassed, output: scored.oracleOutput };
    recordFields(draft, { ...scored.fields, review_artifact: await copyReviewArtifact(cell.reviewDir, input.outDir, `${cell.label}.review.json`) });
    reviewInvalid = scored.invalid === null ? null : redactText(scored.invalid, secrets);
  } else {
    try {
      verdict = await timePhase(draft, "oracle", () => runHiddenOracle(input.oracle, {
        workspaceDir: workspace,
        privateRoot: prepared.privateRoot,
        runner: createBwrapOracleRunner({ env: { ...buildSandboxEnv(), ...buildWorkspaceGitEnvForSandbox() }, mounts: prepared.dependencyMounts, tmpfs: prepared.dependencyTmpfs, runSandboxed: taskCommand }),
        timeoutMs: input.timeoutMs,
        ...(input.signal === undefined ? {} : { signal: input.signal }),
      }));
    } catch (error) {
      const state = ranOutOfTime(error);
      unavailable = state === null ? describeOracleUnavailable(error) : null;
      if (state === null && unavailable === null) throw error;
      verdict = state !== null ? { passed: false, output: `${ORACLE_OUTPUT.failed} (did not finish: ${state})` } : { passed: false, output: ORACLE_OUTPUT.unavailable };
      if (unavailable !== null) unavailable = redactText(unavailable, secrets);
    }
  }
  recordFields(draft, { oracle_passed: verdict.passed, oracle_output: verdict.output });

  const measured = { skillsChanged: skillsAfter !== prepared.skillDigest, verifyPassed: verify.passed, oraclePassed: verdict.passed, reviewInvalid, oracleUnavailable: unavailable };
  let diffAfter: string;
  const captureStarted = performance.now();
  try {
    const { churn, patch, undiffed, diffDigest } = await measureWorkspace(workspace, baseSha, prepared.privateRoot, input.signal, sandbox);
    recordFields(draft, { diff_files: churn.files, diff_insertions: churn.insertions, diff_deletions: churn.deletions });
    // Entries git was not allowed to read are counted in the churn; the row says which, so nothing is hidden silently.
    if (undiffed.length > 0) {
      const named = undiffed.slice(0, 8).map((entry) => formatUndiffedMarker(entry).slice("# wfbench: ".length).trimEnd());
      const more = undiffed.length > 8 ? ` (+${undiffed.length - 8} more)` : "";
      draft.evidence_diagnostics = [...draft.evidence_diagnostics, redactText(`workspace entries counted as changed files but not diffed: ${named.join("; ")}${more}`, secrets)];
    }
    // The agent can write the cell's token (or anything it found) into the workspace; the stored patch never carries it.
    const stored = redactPatch(patch, secrets);
    draft.patch_artifact = await writePatch(input.outDir, `${cell.label}.patch`, stored);
    // The churn fingerprint the contamination alarm compares across arms: the bytes the patch file holds.
    draft.diff_digest = sha256Hex(stored);
    diffAfter = diffDigest;
  } catch (error) {
    // The same git read this workspace before the session (prepareCell), so a refusal now is what the candidate left.
    if (!isRefusal(error)) throw error;
    return { ...measured, diffUnchanged: false, workspaceInvalid: redactText(`the harness's git could not measure the workspace after the session: ${error.message}`, secrets) };
  } finally {
    recordPhase(draft, "capture", performance.now() - captureStarted);
  }
  return { ...measured, diffUnchanged: diffAfter === prepared.diffBefore, workspaceInvalid: null };
}
