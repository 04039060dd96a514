import { performance } from "node:perf_hooks";
import { mkdir, mkdtemp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { inspectRelativePath, isSanitizerError } from "@wfbench/clone-sanitizer";
import { removeTree } from "@wfbench/durable-fs";
import { ORACLE_OUTPUT, isOracleError } from "@wfbench/oracle-snapshot";
import { buildResultRow, isCandidateArm, isCeArm, resolveIncumbentArm, type ResultRow } from "@wfbench/result-row";
import { SANDBOX_WORKSPACE, isSandboxError, type Mount } from "@wfbench/sandbox-bwrap";
import { isEvidenceError, redactText, type OwnOutputBound } from "@wfbench/stream-json-evidence";
import { buildArmSessions, listArmSkills } from "./arms.js";
import type { StreamAccounting } from "@wfbench/litellm-gateway";
import type { CellGateway, RunCellInput } from "./cell-input.js";
import { emptyRow, recordFields, type CellDraft } from "./empty-row.js";
import { CellPipelineError, isCellPipelineError } from "./errors.js";
import { attributeFailure } from "./attribute-failure.js";
import { judgeCell, judgeCleanupFailure, type CellVerdict, type SessionEnding, type SessionFacts, type WireFacts } from "./judge-cell.js";
import { measureCell } from "./measure-cell.js";
import { prepareCell, type PreparedCell } from "./prepare-cell.js";
import { runArmSessions, type SessionProgress } from "./run-arm-sessions.js";
import type { SessionContext, SessionRecord } from "./run-session.js";
import { countMcpToolUses, summarizeSessions } from "./summarize-sessions.js";
import { buildSessionMcp } from "./build-mcp-config.js";
import { serveMcpServers, type McpHost } from "./serve-mcp-servers.js";
import { reconcileCost } from "./reconcile-cost.js";
import { TASK_COMMANDS_PHASE, recordPhase, timePhase } from "./time-phase.js";

export type { CellGateway, RunCellInput } from "./cell-input.js";

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

function applyVerdict(draft: CellDraft, verdict: CellVerdict): void {
  recordFields(draft, { ok: verdict.ok, error_kind: verdict.error_kind, error_detail: verdict.error_detail, resolved: verdict.resolved });
  if (verdict.diagnostics.length > 0) draft.evidence_diagnostics = [...draft.evidence_diagnostics, ...verdict.diagnostics];
}

/**
 * What the sessions that finished before a harness failure measured (their transcripts are on disk): ids, transcript
 * artifacts, usage and diagnostics, plus a note saying the cell is incomplete. The cell-level skill proof and tool
 * tallies stay null (a session that never ran proves nothing), and `ok` / `error_kind` stay the infra-error's.
 */
function foldInterruptedSessions(sessions: readonly SessionRecord[], planned: number): Partial<CellDraft> {
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

/** The parser bound a failed session's own output exceeded: the evidence's own finding, else the sandbox's overflow count. */
function ownOutputBoundOf(failed: SessionRecord | undefined): OwnOutputBound | null {
  if (failed === undefined) return null;
  return failed.ownOutputBound ?? (failed.captureOverflowed === true ? "capture-size" : null);
}

/** How the first session-error session ended (its sandbox state and exit, where its stream stopped); null if none. */
function findFailedEnding(sessions: readonly SessionRecord[]): SessionEnding | null {
  const failed = sessions.find((session) => session.errorKind !== null);
  if (failed?.errorKind !== "session-error" || failed.errorDetail === null || typeof failed.errorDetail === "string") return null;
  return { processState: failed.errorDetail.process_state, exitCode: failed.errorDetail.returncode, streamEnd: failed.streamEnd };
}

/**
 * What the cell's finished sessions account for on the wire: the assistant message ids their streams show and the
 * tokens their modelUsage reports (null when any session reported none).
 */
function accountSessions(sessions: readonly SessionRecord[]): StreamAccounting {
  let reportedTokens: number | null = 0;
  for (const session of sessions) reportedTokens = reportedTokens === null || session.modelUsageTokens === null ? null : reportedTokens + session.modelUsageTokens;
  return { messageIds: sessions.flatMap((session) => session.assistantMessageIds), reportedTokens };
}

/**
 * The row's note on spend outside the CLI, or null when every served request is accounted for (or none was matched).
 * A session whose stream did not parse whole (refused, or cut by a kill) shows only the message ids it parsed, so
 * the note says so rather than claiming the CLI did not make those requests.
 */
function describeUnaccounted(draft: CellDraft, sessions: readonly SessionRecord[]): string | null {
  const requests = draft.wire_unaccounted_requests ?? null;
  if (requests === null || requests === 0) return null;
  const cost = draft.wire_unaccounted_cost_usd ?? null;
  const unparsed = sessions.flatMap((session, index) => (session.toolUseCounts === null ? [index + 1] : []));
  const why = unparsed.length === 0 ? "" : ` (session ${unparsed.join(", ")}'s stream did not parse whole, so requests its CLI made may be among them)`;
  return `unaccounted spend: ${requests} gateway request(s) of the cell's token (${cost === null ? "cost unknown" : `$${cost.toFixed(6)}`}) that no CLI stream of the cell accounts for${why}`;
}

/**
 * Revokes the cell's token once, flushes the gateway's usage log and records the cell's wire usage in the draft,
 * matched against what the sessions recorded so far account for; keeps the wire facts judgeCell reads.
 */
function gatewayCloser(gateway: CellGateway, cellId: string, draft: CellDraft, progress: SessionProgress): { revoke(): Promise<void>; readonly revoked: boolean; readonly wire: WireFacts } {
  let revoked = false;
  let facts: WireFacts = { requests: 0, upstreamFailedRequests: 0, abortedRequests: 0 };
  return {
    get revoked() {
      return revoked;
    },
    get wire() {
      return facts;
    },
    async revoke() {
      if (revoked) return;
      revoked = true;
      gateway.revokeCell(cellId);
      await gateway.flush();
      const wire = gateway.summarizeCell(cellId, accountSessions(progress.sessions));
      facts = { requests: wire.requests, upstreamFailedRequests: wire.upstreamFailedRequests, abortedRequests: wire.abortedRequests };
      recordFields(draft, {
        wire_requests: wire.requests,
        wire_failed_requests: wire.failedRequests,
        wire_input_tokens: wire.inputTokens,
        wire_output_tokens: wire.outputTokens,
        wire_cache_read_input_tokens: wire.cacheReadInputTokens,
        wire_cache_creation_input_tokens: wire.cacheCreationInputTokens,
        wire_cost_usd: wire.costUsd,
        wire_usage_complete: wire.complete,
        wire_price_tables: [...wire.priceTables],
        wire_unaccounted_requests: wire.unaccountedRequests,
        wire_unaccounted_cost_usd: wire.unaccountedCostUsd,
      });
    },
  };
}

/** Removes a tree, turning a failure into its message (the caller judges it). */
async function tryRemove(path: string): Promise<string | null> {
  try {
    await removeTree(path);
    return null;
  } catch (error) {
    return describeError(error);
  }
}

/**
 * Runs one cell end to end: prepareCell (private sanitized copy, setup, overlay) → runArmSessions (the real CLI in the
 * sandbox, gateway socket only, minted token revoked afterwards) → measureCell (verify read-only without network,
 * hidden oracle staged after the model exited, churn and patch) → judgeCell → one row built through the row contract.
 * Trusts its inputs. A failure is judged by its root cause (attributeFailure): once a session ran, what the
 * candidate's own workspace, home or tmp caused is `workspace-invalid`; environment failures of the sandbox,
 * sanitizer, oracle or evidence layers are `infra-error`; any other exception (a harness bug, a row the contract
 * refuses) propagates. The cell is removed on every path, candidate-written trees first, before the row is built.
 */
export async function runCell(input: RunCellInput): Promise<ResultRow> {
  const now = input.now ?? ((): Date => new Date());
  const { task, arm, run } = input;
  // A candidate arm runs its incumbent's logic; only the skill files in the cell differ.
  const logic = resolveIncumbentArm(arm);
  if (isCandidateArm(arm) && input.overlay === undefined) throw new TypeError(`arm ${arm} needs a candidate overlay`);
  if (isCeArm(arm) && input.cePlugin === undefined) throw new TypeError(`arm ${arm} needs the CE plugin snapshot`);
  const cellId = `${task.id}/${arm}/run${run}`;
  const label = `${task.id}-${arm}-run${run}`;
  const token = input.gateway.mintCellToken(cellId);
  const secrets = [token];
  const evaluatedSkills = listArmSkills(arm, input.skills);
  const draft = emptyRow(input);
  // Outside the try: a harness failure after a session finished must still report what that session measured.
  const progress: SessionProgress = { sessions: [], planProduced: null, sessionWallMs: [] };
  const cellStarted = performance.now();
  // Present in every row, 0 when the cell ran none of the task's commands: the report then splits every timed cell.
  recordPhase(draft, TASK_COMMANDS_PHASE, 0);
  const plannedSessions = buildArmSessions(arm, task.prompt, input.skills).length;
  let sessionsFolded = false;
  let sessionsStarted = false;
  let cellRoot: string | null = null;
  // What the candidate's processes could write; filled in once the cell is prepared.
  const candidateRoots: string[] = [];
  let privateRoot: string | null = null;
  // The fixed ones plus, under the private root, each session's HOME/TMP and every `.git` a session left (moved aside
  // unread before the next session and before measuring).
  const listCandidateTrees = async (): Promise<string[]> => {
    if (privateRoot === null) return [...candidateRoots];
    const root = privateRoot;
    const names = await readdir(root).catch(() => [] as string[]);
    return [...candidateRoots, ...names.filter((name) => name.startsWith("session-") || name.startsWith("left-git-")).map((name) => join(root, name))];
  };
  const gateway = gatewayCloser(input.gateway, cellId, draft, progress);
  // Outside the measured stage judgeCell never sees the wire; the row still says what was spent outside the CLI.
  const noteUnaccounted = (): void => {
    const note = describeUnaccounted(draft, progress.sessions);
    if (note !== null) draft.evidence_diagnostics = [...draft.evidence_diagnostics, note];
  };
  try {
    cellRoot = await mkdtemp(join(input.workDir, "cell-"));
    const prepared = await prepareCell(input, cellRoot, draft, secrets, evaluatedSkills);
    if (!prepared.ok) {
      applyVerdict(draft, judgeCell({ stage: "setup-failed", detail: prepared.detail }));
      await gateway.revoke();
      noteUnaccounted();
    } else {
      candidateRoots.push(prepared.workspace, prepared.home, prepared.tmp, join(prepared.privateRoot, "review-output"));
      privateRoot = prepared.privateRoot;
      await runPreparedCell(prepared);
    }
  } catch (error) {
    if (!isInfraError(error)) throw error;
    await gateway.revoke().catch(() => undefined);
    const origin = attributeFailure(error, { sessionsStarted, candidateRoots: await listCandidateTrees() });
    applyVerdict(draft, judgeCell({ stage: "interrupted", aborted: input.signal?.aborted === true, detail: redactText(describeError(error), secrets), origin }));
    noteUnaccounted();
    if (draft.oracle_output === "" && isOracleError(error)) draft.oracle_output = ORACLE_OUTPUT.unavailable;
    if (!sessionsFolded && progress.sessions.length > 0) {
      recordFields(draft, { ...foldInterruptedSessions(progress.sessions, plannedSessions), ...(progress.planProduced === null ? {} : { plan_produced: progress.planProduced }) });
    }
  } finally {
    if (!gateway.revoked) await gateway.revoke().catch(() => undefined);
    if (cellRoot !== null) {
      const root = cellRoot;
      await timePhase(draft, "cleanup", () => removeCell(root));
    }
    for (const [index, ms] of (progress.sessionWallMs ?? []).entries()) recordPhase(draft, `session_${index + 1}`, ms);
    recordPhase(draft, "total", performance.now() - cellStarted);
  }
  // Both figures are final only here (an interrupted cell folds its sessions' costs in the catch above).
  recordFields(draft, reconcileCost(draft.cost_usd, draft.wire_cost_usd));
  // Built only now, after the removal was judged: no path may return a row that skipped its cleanup verdict.
  return buildResultRow({ ...draft, recorded_at: now().toISOString() });

  async function runPreparedCell(prepared: PreparedCell): Promise<void> {
    const servers = input.mcp?.servers ?? [];
    const keepsMcp = servers.length > 0 && arm !== "baseline_nomcp";
    // The index is bound over an empty directory (git shows none), read-only for the sessions and every server.
    const index = keepsMcp ? (input.mcp?.index ?? null) : null;
    const indexMounts: Mount[] = index === null ? [] : [{ source: index.hostDir, target: `${SANDBOX_WORKSPACE}/${index.output}`, mode: "ro" }];
    if (index !== null) {
      const seen = await inspectRelativePath(prepared.workspace, index.output);
      if (seen.kind !== "absent") throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `the index path ${index.output} already exists in the workspace (the task's setup or assets made it): choose another index_builder.output`);
      await mkdir(join(prepared.workspace, index.output), { recursive: true });
      recordFields(draft, { sanitized_graph_snapshot_digest: index.snapshotDigest, sanitized_graph_manifest_digest: index.manifestDigest });
    }
    // baseline_nomcp starts no server at all: an empty strict config, every declared server's tools refused.
    const mcpHost: McpHost | null =
      !keepsMcp || input.mcp === undefined
        ? null
        : await serveMcpServers({
            extraMounts: indexMounts,
            servers,
            workspace: prepared.workspace,
            hostDir: join(prepared.privateRoot, "mcp"),
            nodePath: input.mcp.nodePath,
            timeoutMs: input.timeoutMs,
            ...(input.signal === undefined ? {} : { signal: input.signal }),
            ...(input.sessionSandbox === undefined ? {} : { sandbox: input.sessionSandbox }),
          });
    const context: SessionContext = {
      workspace: prepared.workspace,
      homeHostPath: prepared.home,
      tmpHostPath: prepared.tmp,
      dependencyMounts: prepared.dependencyMounts,
      dependencyTmpfs: prepared.dependencyTmpfs,
      readOnlySkillRoots: evaluatedSkills.map((skill) => `.claude/skills/${skill}`),
      claudePath: input.claudePath,
      shellPrefixPath: input.shellPrefixPath,
      shellPath: input.shellPath,
      settingsStubPath: prepared.settingsStub,
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
      ...(input.sessionSandbox === undefined ? (input.backend === undefined ? {} : { sandbox: input.backend.run }) : { sandbox: input.sessionSandbox }),
      ...(isCeArm(arm) && input.cePlugin !== undefined ? { cePluginHostPath: input.cePlugin.hostPath } : {}),
      ...(servers.length === 0 ? {} : { mcp: { session: buildSessionMcp(arm, servers), mounts: [...(mcpHost?.sessionMounts ?? []), ...indexMounts] } }),
    };
    sessionsStarted = true;
    let mcpNotes: string[] = [];
    const outcome = await runArmSessions(logic, {
      arm,
      taskPrompt: task.prompt,
      skills: input.skills,
      evaluatedSkills,
      skillDigest: prepared.skillDigest,
      workspace: prepared.workspace,
      privateRoot: prepared.privateRoot,
      context,
      progress,
      harnessGit: prepared.harnessGit,
      reviewPlaceholders: (input.backend?.kind ?? "bwrap") === "bwrap",
    }).finally(async () => {
      if (mcpHost !== null) mcpNotes = await mcpHost.close();
    });
    await gateway.revoke();

    const summary = summarizeSessions(progress.sessions);
    recordFields(draft, {
      ...summary,
      evidence_diagnostics: [...summary.evidence_diagnostics, ...mcpNotes],
      plan_produced: outcome.planProduced,
      mcp_tool_uses: countMcpToolUses(summary.tool_use_counts, servers.map((server) => server.name)),
    });
    sessionsFolded = true;
    const sessions: SessionFacts = {
      ok: summary.ok,
      errorKind: summary.error_kind,
      errorDetail: summary.error_detail,
      cancelled: progress.sessions.some((s) => s.cancelled),
      failedEnding: findFailedEnding(progress.sessions),
      ownOutputBound: ownOutputBoundOf(progress.sessions.find((s) => s.errorKind !== null)),
    };
    if (sessions.cancelled) {
      applyVerdict(draft, judgeCell({ stage: "sessions-cancelled", sessions }));
      noteUnaccounted();
      return;
    }
    const measured = await measureCell({ input, prepared, evaluatedSkills, reviewDir: outcome.reviewDir, label, secrets }, draft);
    applyVerdict(
      draft,
      judgeCell({
        stage: "measured",
        sessions,
        review: logic === "review",
        planFailure: outcome.planFailure,
        reviewFailure: outcome.reviewFailure,
        aborted: input.signal?.aborted === true,
        wire: gateway.wire,
        unaccountedSpend: describeUnaccounted(draft, progress.sessions),
        ...measured,
      }),
    );
  }

  /** Candidate-written trees first (their failure is the candidate's once a session ran), then the harness's rest. */
  async function removeCell(root: string): Promise<void> {
    if (sessionsStarted) {
      for (const tree of await listCandidateTrees()) {
        const failed = await tryRemove(tree);
        if (failed !== null) {
          applyVerdict(draft, judgeCleanupFailure(draft, redactText(failed, secrets), "workspace"));
          // The rest cannot go while a candidate tree is still inside it; the verdict above already says why.
          return;
        }
      }
    }
    const failed = await tryRemove(root);
    if (failed !== null) applyVerdict(draft, judgeCleanupFailure(draft, redactText(failed, secrets), "harness"));
  }
}
