import { mkdir, mkdtemp, open } from "node:fs/promises";
import { join } from "node:path";
import { isSanitizerError, materializeCell, removeTree, type Template } from "@wfbench/clone-sanitizer";
import type { CellUsageSummary } from "@wfbench/litellm-gateway";
import { ORACLE_OUTPUT, createBwrapOracleRunner, isOracleError, readReviewLabels, runHiddenOracle, type OracleSnapshot } from "@wfbench/oracle-snapshot";
import { REVIEW_OUTPUT_ENV_VAR, SANDBOX_REVIEW_OUTPUT, SANDBOX_REVIEW_OUTPUT_PATH } from "@wfbench/review-scoring";
import { isSandboxError, runSandboxed, type Mount } from "@wfbench/sandbox-bwrap";
import { isEvidenceError, redactText } from "@wfbench/stream-json-evidence";
import { digestTaskPrompt, type ResolvedSource, type SuiteSkills, type Task } from "@wfbench/task-suite";
import { applyCandidateOverlay } from "./apply-candidate-overlay.js";
import { buildArmSessions, isCandidateArm, listArmSkills, resolveIncumbentArm, type Arm } from "./arms.js";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import { computeSkillFingerprint } from "./compute-skill-fingerprint.js";
import { CellPipelineError, isCellPipelineError } from "./errors.js";
import { diffPlanDocuments, digestWorkspaceDiff, listPlanDocuments, measureWorkspace, readWorkspaceHead, type Churn } from "./inspect-workspace.js";
import type { CandidateOverlayFile } from "./read-candidate-overlay.js";
import type { ResultRow } from "./result-row.js";
import { runSession, type SessionRecord, type SessionSandbox } from "./run-session.js";
import { copyReviewArtifact, scoreReviewArtifact } from "./score-review-artifact.js";
import { checkPhaseWorkspace, snapshotWorkspace } from "./snapshot-workspace.js";
import { summarizeSessions } from "./summarize-sessions.js";

/** The gateway as a cell sees it: one minted token per cell, revoked when the model is done, then summarised. */
export interface CellGateway {
  readonly hostSocketPath: string;
  mintCellToken(cellId: string): string;
  revokeCell(cellId: string): number;
  summarizeCell(cellId: string): CellUsageSummary;
  flush(): Promise<void>;
}

/** Everything one (task, arm, repeat) needs; all of it is the harness's own, already validated data. */
export interface RunCellInput {
  readonly task: Task;
  readonly arm: Arm;
  /** 0-based repeat. */
  readonly run: number;
  readonly skills: SuiteSkills;
  readonly source: ResolvedSource;
  readonly template: Template;
  readonly oracle: OracleSnapshot;
  readonly model: string;
  readonly effort: string;
  readonly proposerModel: string | null;
  /** Host path of the verified Claude Code binary staged execute-only (stageExecOnlyBinary), mounted at /opt/claude/claude. */
  readonly claudePath: string;
  /** Host path of the shell-prefix wrapper (see renderShellPrefix), mounted read-only. */
  readonly shellPrefixPath: string;
  readonly gateway: CellGateway;
  /** Label recorded in the row: `scripted`, `anthropic`, … */
  readonly upstream: string;
  /** Private scratch directory for cell copies (removed per cell). */
  readonly workDir: string;
  /** The sweep's output directory (transcripts, patches). */
  readonly outDir: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** The validated candidate overlay and its digest; required for candidate arms, ignored by the others. */
  readonly overlay?: { readonly files: readonly CandidateOverlayFile[]; readonly digest: string };
  /** The sandbox the model sessions run in (default `runSandboxed`); a test seam, never set by the runner. */
  readonly sessionSandbox?: SessionSandbox;
}

const VERIFY_TAIL_CHARS = 4000;
const MAX_DETAIL_CHARS = 2000;

function isInfraError(error: unknown): boolean {
  if (isSandboxError(error) || isSanitizerError(error) || isOracleError(error) || isEvidenceError(error) || isCellPipelineError(error)) return true;
  // OSError in the original: a Node system error carries a string errno code.
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string" && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

function describeError(error: unknown): string {
  const e = error as Error & { code?: unknown };
  return `${e.name}${typeof e.code === "string" ? `(${e.code})` : ""}: ${e.message}`.slice(0, MAX_DETAIL_CHARS);
}

/**
 * What the sessions that finished before a harness failure measured (their transcripts are on disk): ids, transcript
 * artifacts, usage and diagnostics, plus a note saying the cell is incomplete. The cell-level skill proof and tool
 * tallies stay null (a session that never ran proves nothing), and `ok` / `error_kind` stay the infra-error's.
 */
function foldInterruptedSessions(sessions: readonly SessionRecord[], planned: number): Partial<ResultRow> {
  const partial = summarizeSessions(sessions);
  return {
    input_tokens: partial.input_tokens,
    cache_creation_input_tokens: partial.cache_creation_input_tokens,
    cache_read_input_tokens: partial.cache_read_input_tokens,
    output_tokens: partial.output_tokens,
    cost_usd: partial.cost_usd,
    duration_s: partial.duration_s,
    num_turns: partial.num_turns,
    session_ids: partial.session_ids,
    transcript_missing: partial.transcript_missing,
    transcript_artifacts: partial.transcript_artifacts,
    evidence_diagnostics: [
      ...partial.evidence_diagnostics,
      `cell interrupted after ${sessions.length} of ${planned} session(s): usage, session ids and transcripts cover the finished session(s) only`,
    ],
  };
}

async function privateDir(path: string): Promise<string> {
  await mkdir(path, { mode: 0o700 });
  return path;
}

/** The review artifact's in-sandbox path under both env names (WFBENCH_* and the original GITNEXUS_BENCH_* alias). */
const REVIEW_OUTPUT_ENV = { [REVIEW_OUTPUT_ENV_VAR]: SANDBOX_REVIEW_OUTPUT_PATH, WFBENCH_REVIEW_OUTPUT: SANDBOX_REVIEW_OUTPUT_PATH };

async function runVerify(workspace: string, command: string, timeoutMs: number, signal?: AbortSignal, reviewOutputDir?: string): Promise<{ passed: boolean; output: string }> {
  // Review verify reads the artifact through a read-only mount of its directory (reference §6.2).
  const mounts: Mount[] = reviewOutputDir === undefined ? [] : [{ source: reviewOutputDir, target: SANDBOX_REVIEW_OUTPUT, mode: "ro" }];
  const env = reviewOutputDir === undefined ? buildSandboxEnv() : { ...buildSandboxEnv(), ...REVIEW_OUTPUT_ENV };
  const result = await runSandboxed(
    { workspace: { hostPath: workspace, mode: "ro" }, mounts, env, network: { mode: "none" } },
    ["/bin/sh", "-c", command],
    { timeoutMs, maxStdoutBytes: 1024 * 1024, ...(signal === undefined ? {} : { signal }) },
  );
  const state = result.state === "exited" ? `[verify exited ${String(result.exitCode)}]` : `[verify ${result.state}]`;
  const text = `${result.stdout.toString("utf8")}${result.stderrTail}`;
  return { passed: result.ok, output: `${text.slice(-VERIFY_TAIL_CHARS)}\n${state}` };
}

async function writePatch(outDir: string, name: string, patch: Buffer): Promise<string> {
  const handle = await open(join(outDir, name), "wx", 0o600);
  try {
    await handle.writeFile(patch);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return name;
}

/**
 * Runs one cell end to end: private sanitized copy → sessions in the sandbox (real CLI, gateway socket only, minted
 * token revoked afterwards) → evidence → verify (read-only, no network) → hidden oracle staged after the model exited →
 * churn and patch → one row. Trusts its inputs; environment failures of the sandbox, sanitizer, oracle or evidence
 * layers become an `infra-error` row, any other exception (a harness bug) propagates.
 */
export async function runCell(input: RunCellInput): Promise<ResultRow> {
  const now = input.now ?? ((): Date => new Date());
  const { task, arm, run } = input;
  // A candidate arm runs its incumbent's logic; only the skill files in the cell differ.
  const logic = resolveIncumbentArm(arm);
  const candidate = isCandidateArm(arm);
  if (candidate && input.overlay === undefined) throw new TypeError(`arm ${arm} needs a candidate overlay`);
  const cellId = `${task.id}/${arm}/run${run}`;
  const label = `${task.id}-${arm}-run${run}`;
  const token = input.gateway.mintCellToken(cellId);
  const secrets = [token];
  const evaluatedSkills = listArmSkills(arm, input.skills);
  const oracleBinding = input.oracle.binding;
  const base: Omit<ResultRow, "recorded_at"> = {
    input_tokens: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    duration_s: null,
    num_turns: null,
    ok: false,
    session_ids: [],
    error_kind: null,
    error_detail: null,
    skill_invoked: null,
    transcript_missing: false,
    transcript_artifacts: [],
    evidence_diagnostics: [],
    gitnexus_tool_uses: null,
    tool_use_counts: null,
    wire_requests: null,
    wire_failed_requests: null,
    wire_input_tokens: null,
    wire_output_tokens: null,
    wire_cache_read_input_tokens: null,
    wire_cache_creation_input_tokens: null,
    wire_cost_usd: null,
    wire_usage_complete: null,
    wire_price_tables: [],
    upstream: input.upstream,
    arm,
    plan_produced: false,
    authored_tests_passed: false,
    authored_test_output: "",
    verify_output: "",
    oracle_passed: false,
    oracle_output: "",
    resolved: false,
    oracle_digest: oracleBinding.oracle_digest,
    oracle_command_digest: oracleBinding.oracle_command_digest,
    oracle_manifest_digest: oracleBinding.oracle_manifest_digest,
    diff_files: null,
    diff_insertions: null,
    diff_deletions: null,
    patch_artifact: null,
    model: input.model,
    benchmark_model: input.model,
    proposer_model: input.proposerModel,
    effort: input.effort,
    task_ref: task.ref,
    task_base_sha: input.source.sha,
    sanitized_task_sha: input.template.sanitizedSha,
    variant_head_sha: null,
    task_prompt_digest: digestTaskPrompt(task.prompt),
    skill_digest: null,
    candidate_overlay_digest: candidate ? (input.overlay?.digest ?? null) : null,
    runtime_digest: null,
    task: task.id,
    class: task.class,
    run,
    sandbox_backend: "bwrap",
    task_asset_snapshot_digest: null,
    task_asset_manifest_digest: null,
    sandbox_dependency_content_digest: null,
    sandbox_dependency_manifest_digest: null,
    sanitized_graph_snapshot_digest: null,
    sanitized_graph_manifest_digest: null,
  };
  const row: Omit<ResultRow, "recorded_at"> = { ...base };
  // Outside the try: a harness failure after a session finished must still report what that session measured.
  const sessions: SessionRecord[] = [];
  const plannedSessions = buildArmSessions(arm, task.prompt, input.skills).length;
  let sessionsFolded = false;
  let planMeasured: boolean | null = null;
  let cellRoot: string | null = null;
  let revoked = false;
  const revoke = async (): Promise<void> => {
    if (revoked) return;
    revoked = true;
    input.gateway.revokeCell(cellId);
    await input.gateway.flush();
    const wire = input.gateway.summarizeCell(cellId);
    Object.assign(row, {
      wire_requests: wire.requests,
      wire_failed_requests: wire.failedRequests,
      wire_input_tokens: wire.inputTokens,
      wire_output_tokens: wire.outputTokens,
      wire_cache_read_input_tokens: wire.cacheReadInputTokens,
      wire_cache_creation_input_tokens: wire.cacheCreationInputTokens,
      wire_cost_usd: wire.costUsd,
      wire_usage_complete: wire.complete,
      wire_price_tables: [...wire.priceTables],
    });
  };
  try {
    cellRoot = await mkdtemp(join(input.workDir, "cell-"));
    const home = await privateDir(join(cellRoot, "home"));
    await mkdir(join(home, ".claude"), { mode: 0o700 });
    const tmp = await privateDir(join(cellRoot, "tmp"));
    const privateRoot = await privateDir(join(cellRoot, "private"));
    const clone = await materializeCell(input.template, { parentDir: cellRoot, ...(input.signal === undefined ? {} : { signal: input.signal }) });
    const workspace = clone.path;
    if (task.setup !== null) {
      const setup = await runSandboxed(
        { workspace: { hostPath: workspace, mode: "rw" }, env: buildSandboxEnv(), network: { mode: "none" } },
        ["/bin/sh", "-lc", task.setup],
        { timeoutMs: 600_000, ...(input.signal === undefined ? {} : { signal: input.signal }) },
      );
      if (!setup.ok) {
        Object.assign(row, { error_kind: "infra-error", error_detail: `setup ${setup.state} (exit ${String(setup.exitCode)}): ${redactText(setup.stderrTail.slice(-1500), secrets)}` });
        await revoke();
        return { ...row, recorded_at: now().toISOString() };
      }
    }
    if (candidate && input.overlay !== undefined) await applyCandidateOverlay(workspace, input.overlay.files, input.timeoutMs, input.signal);
    row.variant_head_sha = await readWorkspaceHead(workspace, input.signal);
    const baseSha = row.variant_head_sha;
    row.skill_digest = await computeSkillFingerprint(workspace, evaluatedSkills);
    const diffBefore = await digestWorkspaceDiff(workspace, baseSha, input.signal);

    const context = {
      workspace,
      homeHostPath: home,
      tmpHostPath: tmp,
      readOnlySkillRoots: evaluatedSkills.map((skill) => `.claude/skills/${skill}`),
      claudePath: input.claudePath,
      shellPrefixPath: input.shellPrefixPath,
      gatewaySocketPath: input.gateway.hostSocketPath,
      token,
      model: input.model,
      effort: input.effort,
      timeoutMs: input.timeoutMs,
      outDir: input.outDir,
      transcriptPrefix: label,
      contaminationSkill: input.skills.work,
      secrets,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(input.sessionSandbox === undefined ? {} : { sandbox: input.sessionSandbox }),
    };
    let planProduced = true;
    let planFailure: string | null = null;
    let reviewFailure: string | null = null;
    let reviewDir: string | null = null;
    const specs = buildArmSessions(arm, task.prompt, input.skills);
    if (logic === "workflow") {
      const [planSpec] = specs;
      if (planSpec === undefined) throw new TypeError("workflow arm without a plan session");
      const before = await listPlanDocuments(workspace);
      const snapshotBefore = await snapshotWorkspace(workspace);
      if (!snapshotBefore.ok) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `before the plan session: ${snapshotBefore.error}`);
      const plan = await runSession(planSpec, context);
      sessions.push(plan);
      const after = await listPlanDocuments(workspace);
      const created = diffPlanDocuments(before.docs, after.docs);
      const deleted = [...before.docs.keys()].filter((path) => !after.docs.has(path));
      planProduced = created.length === 1 && after.unsafe.length === 0;
      planMeasured = planProduced;
      if (!planProduced) planFailure = after.unsafe.length > 0 ? `plan directory holds links or special files: ${after.unsafe.join(", ")}` : `expected exactly one plan document under docs/plans, found ${created.length}`;
      else if (deleted.length > 0) planFailure = `the plan session deleted plan document(s): ${deleted.slice(0, 8).join(", ")}`;
      else {
        // Reference §6.6: the plan session may write its one plan document (and new parent directories), nothing else.
        const snapshotAfter = await snapshotWorkspace(workspace);
        const boundary = snapshotAfter.ok ? checkPhaseWorkspace(snapshotBefore.value, snapshotAfter.value, created[0] ?? null) : { ok: false as const, error: `after the plan session: ${snapshotAfter.error}` };
        if (!boundary.ok) planFailure = boundary.error;
        else if ((await computeSkillFingerprint(workspace, evaluatedSkills).catch(() => "unreadable")) !== row.skill_digest) planFailure = "the evaluated skill files changed during the plan session";
      }
      if (plan.ok && planFailure === null) {
        const work = buildArmSessions(arm, task.prompt, input.skills, created[0])[1];
        if (work === undefined) throw new TypeError("workflow arm without a work session");
        sessions.push(await runSession(work, context));
      }
    } else if (logic === "review") {
      const [reviewSpec] = specs;
      if (reviewSpec === undefined) throw new TypeError("review arm without a review session");
      // Reference §5.1 review flow: exclusive mkdir (never pre-existing), and no file created in advance, so an absent
      // artifact after the session means "never written".
      reviewDir = join(privateRoot, "review-output");
      await mkdir(reviewDir, { mode: 0o700 });
      const snapshotBefore = await snapshotWorkspace(workspace);
      if (!snapshotBefore.ok) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `before the review session: ${snapshotBefore.error}`);
      sessions.push(await runSession(reviewSpec, { ...context, reviewOutputHostPath: reviewDir }));
      // The review workspace must come back byte-identical (allowed artifact: none), skills included.
      const snapshotAfter = await snapshotWorkspace(workspace);
      const boundary = snapshotAfter.ok ? checkPhaseWorkspace(snapshotBefore.value, snapshotAfter.value, null) : { ok: false as const, error: `after the review session: ${snapshotAfter.error}` };
      if (!boundary.ok) reviewFailure = `the review session changed the workspace: ${boundary.error}`;
    } else {
      for (const spec of specs) sessions.push(await runSession(spec, context));
    }
    await revoke();

    const summary = summarizeSessions(sessions);
    Object.assign(row, summary, { plan_produced: planProduced });
    sessionsFolded = true;
    if (sessions.some((s) => s.cancelled)) {
      Object.assign(row, { ok: false, error_kind: "cancelled" });
      return { ...row, recorded_at: now().toISOString() };
    }
    if (summary.ok && planFailure !== null) Object.assign(row, { ok: false, error_kind: "plan-evidence-invalid", error_detail: planFailure });
    if (summary.ok && reviewFailure !== null) Object.assign(row, { ok: false, error_kind: "review-evidence-invalid", error_detail: reviewFailure });
    const skillsAfter = await computeSkillFingerprint(workspace, evaluatedSkills).catch(() => "unreadable");
    if (row.error_kind === null && skillsAfter !== row.skill_digest) {
      Object.assign(row, { error_kind: logic === "review" ? "review-evidence-invalid" : "implementation-evidence-invalid", error_detail: "the evaluated skill files changed during the session" });
    }

    const verify = await runVerify(workspace, task.verify, input.timeoutMs, input.signal, reviewDir ?? undefined);
    const verifyOutput = redactText(verify.output, secrets);
    Object.assign(row, { authored_tests_passed: verify.passed, authored_test_output: verifyOutput, verify_output: verifyOutput });
    let verdict: { passed: boolean; output: string };
    if (reviewDir !== null) {
      // The review "oracle" is the scoring (reference §5.1): labels come from the snapshot captured before the sweep
      // and are read only now, after the model exited; they never enter a sandbox the model can see.
      const labels = readReviewLabels(input.oracle);
      if (!labels.ok) throw new CellPipelineError("CELL_PIPELINE_REVIEW_LABELS_INVALID", labels.error.message);
      const scored = scoreReviewArtifact(reviewDir, labels.value);
      verdict = { passed: scored.oraclePassed, output: scored.oracleOutput };
      Object.assign(row, scored.fields, { review_artifact: await copyReviewArtifact(reviewDir, input.outDir, `${label}.review.json`) });
      // The first error kind and detail are kept; an unreadable artifact only sets them when nothing failed before.
      if (scored.invalid !== null && row.error_kind === null) Object.assign(row, { error_kind: "review-evidence-invalid", error_detail: `review output invalid: ${redactText(scored.invalid, secrets)}` });
      else if (scored.invalid !== null) row.evidence_diagnostics = [...row.evidence_diagnostics, `review output invalid: ${redactText(scored.invalid, secrets)}`];
    } else {
      verdict = await runHiddenOracle(input.oracle, {
        workspaceDir: workspace,
        privateRoot,
        runner: createBwrapOracleRunner({ env: buildSandboxEnv() }),
        timeoutMs: input.timeoutMs,
        ...(input.signal === undefined ? {} : { signal: input.signal }),
      });
    }
    Object.assign(row, { oracle_passed: verdict.passed, oracle_output: verdict.output });

    const measured = await measureWorkspace(workspace, baseSha, input.signal);
    const churn: Churn = measured.churn;
    Object.assign(row, { diff_files: churn.files, diff_insertions: churn.insertions, diff_deletions: churn.deletions });
    row.patch_artifact = await writePatch(input.outDir, `${label}.patch`, measured.patch);
    const diffAfter = await digestWorkspaceDiff(workspace, baseSha, input.signal);

    row.resolved = row.ok && row.error_kind === null && verify.passed && verdict.passed;
    if (row.error_kind === null && !verify.passed) row.error_kind = "verify-failed";
    else if (row.error_kind === null && !verdict.passed) row.error_kind = "oracle-failed";
    // Only implementation arms owe a diff (Appendix B); a review is read-only by design.
    if (logic !== "review" && row.resolved && diffAfter === diffBefore) Object.assign(row, { resolved: false, error_kind: "no-work-produced" });
    // A cancel that lands during verify or the oracle makes them fail; that is not a verdict on the candidate.
    if (input.signal?.aborted === true) Object.assign(row, { ok: false, resolved: false, error_kind: "cancelled", error_detail: "the sweep was cancelled before the cell finished" });
  } catch (error) {
    if (!isInfraError(error)) throw error;
    await revoke().catch(() => undefined);
    const cancelled = input.signal?.aborted === true;
    Object.assign(row, {
      ok: false,
      resolved: false,
      error_kind: cancelled ? "cancelled" : "infra-error",
      error_detail: redactText(describeError(error), secrets),
      oracle_output: row.oracle_output === "" && isOracleError(error) ? ORACLE_OUTPUT.unavailable : row.oracle_output,
    });
    if (!sessionsFolded && sessions.length > 0) Object.assign(row, foldInterruptedSessions(sessions, plannedSessions), planMeasured === null ? {} : { plan_produced: planMeasured });
  } finally {
    if (!revoked) await revoke().catch(() => undefined);
    if (cellRoot !== null) {
      try {
        await removeTree(cellRoot);
      } catch (cleanup) {
        const primary = `${row.error_kind ?? "none"}: ${typeof row.error_detail === "string" ? row.error_detail : JSON.stringify(row.error_detail)}`;
        Object.assign(row, { ok: false, resolved: false, error_kind: "cleanup-failure", error_detail: `primary=${primary}; cleanup: ${describeError(cleanup)}`.slice(0, MAX_DETAIL_CHARS) });
      }
    }
  }
  return { ...row, recorded_at: now().toISOString() };
}
