import { performance } from "node:perf_hooks";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { HarnessGitDir } from "@wfbench/clone-sanitizer";
import type { Arm, IncumbentArm } from "@wfbench/result-row";
import type { SuiteSkills } from "@wfbench/task-suite";
import { buildArmSessions, type SessionSpec } from "./arms.js";
import { computeSkillFingerprint } from "./compute-skill-fingerprint.js";
import { CellPipelineError } from "./errors.js";
import { diffPlanDocuments, listPlanDocuments } from "./inspect-workspace.js";
import { runSession, type SessionContext, type SessionRecord } from "./run-session.js";
import { createSessionDirs, resetWorkspaceGit } from "./session-dirs.js";
import { checkPhaseWorkspace, snapshotWorkspace } from "./snapshot-workspace.js";
import { prepareReviewWorkspace, removeReviewPlaceholders } from "./prepare-review-workspace.js";

/**
 * What the sessions of a cell have measured so far. Filled in while they run, so a harness failure after a session
 * finished still reports that session (and the plan check) in the infra-error row.
 */
export interface SessionProgress {
  readonly sessions: SessionRecord[];
  /** Whether the plan session produced exactly one plan document; null until a plan session was checked. */
  planProduced: boolean | null;
  /** Wall time of each session the cell started, in order (CLI start-up and model time included), when tracked. */
  readonly sessionWallMs?: number[];
}

/** What an arm's sessions leave for measuring and judging. */
export interface ArmSessionsOutcome {
  /** `plan_produced`: true unless a plan-producing arm created no plan. */
  readonly planProduced: boolean;
  readonly planFailure: string | null;
  readonly reviewFailure: string | null;
  /** The private review-output directory of a review arm, null for the others. */
  readonly reviewDir: string | null;
}

/** One arm's sessions in a prepared cell. */
export interface ArmSessionsInput {
  readonly arm: Arm;
  readonly taskPrompt: string;
  readonly skills: SuiteSkills;
  readonly evaluatedSkills: readonly string[];
  /** The fingerprint the evaluated skills must keep (`skill_digest`). */
  readonly skillDigest: string | null;
  readonly workspace: string;
  readonly privateRoot: string;
  readonly context: SessionContext;
  readonly progress: SessionProgress;
  /** The harness's own git directory: a fresh copy becomes the workspace's `.git` before each later session. */
  readonly harnessGit?: HarnessGitDir;
  /** Review arms under bwrap: create the §6.5 workspace placeholders before the session (never on the host backend). */
  readonly reviewPlaceholders?: boolean;
}

/**
 * One session with its own fresh HOME and TMP (nothing of an earlier session's home, CLI state or temporary files
 * reaches it), after a later session's workspace `.git` was reset to the harness's copy.
 */
async function runFreshSession(input: ArmSessionsInput, spec: SessionSpec, extra: Partial<SessionContext> = {}): Promise<SessionRecord> {
  if (input.progress.sessions.length > 0 && input.harnessGit !== undefined) await resetWorkspaceGit(input.workspace, input.harnessGit, input.privateRoot);
  const started = performance.now();
  try {
    return await runSession(spec, { ...input.context, ...extra, ...(await createSessionDirs(input.privateRoot)) });
  } finally {
    input.progress.sessionWallMs?.push(Math.round(performance.now() - started));
  }
}

type ArmStrategy = (input: ArmSessionsInput, specs: readonly SessionSpec[]) => Promise<ArmSessionsOutcome>;

/**
 * Workflow: the plan session, its checks (exactly one new plan document, none deleted, nothing else written, skill
 * bytes intact; reference §6.6), then the work session only if the plan session was ok and its checks passed.
 */
const runWorkflow: ArmStrategy = async (input, specs) => {
  const { workspace, progress } = input;
  const [planSpec] = specs;
  if (planSpec === undefined) throw new TypeError("workflow arm without a plan session");
  const before = await listPlanDocuments(workspace);
  const snapshotBefore = await snapshotWorkspace(workspace);
  if (!snapshotBefore.ok) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `before the plan session: ${snapshotBefore.error}`);
  const plan = await runFreshSession(input, planSpec);
  progress.sessions.push(plan);
  const after = await listPlanDocuments(workspace);
  const created = diffPlanDocuments(before.docs, after.docs);
  const deleted = [...before.docs.keys()].filter((path) => !after.docs.has(path));
  const planProduced = created.length === 1 && after.unsafe.length === 0;
  progress.planProduced = planProduced;
  let planFailure: string | null = null;
  if (!planProduced) planFailure = after.unsafe.length > 0 ? `plan directory holds links or special files: ${after.unsafe.join(", ")}` : `expected exactly one plan document under docs/plans, found ${created.length}`;
  else if (deleted.length > 0) planFailure = `the plan session deleted plan document(s): ${deleted.slice(0, 8).join(", ")}`;
  else {
    // Reference §6.6: the plan session may write its one plan document (and new parent directories), nothing else.
    const snapshotAfter = await snapshotWorkspace(workspace);
    const boundary = snapshotAfter.ok ? checkPhaseWorkspace(snapshotBefore.value, snapshotAfter.value, created[0] ?? null) : { ok: false as const, error: `after the plan session: ${snapshotAfter.error}` };
    if (!boundary.ok) planFailure = boundary.error;
    else if ((await computeSkillFingerprint(workspace, input.evaluatedSkills).catch(() => "unreadable")) !== input.skillDigest) planFailure = "the evaluated skill files changed during the plan session";
  }
  if (plan.ok && planFailure === null) {
    const work = buildArmSessions(input.arm, input.taskPrompt, input.skills, created[0])[1];
    if (work === undefined) throw new TypeError("workflow arm without a work session");
    progress.sessions.push(await runFreshSession(input, work));
  }
  return { planProduced, planFailure, reviewFailure: null, reviewDir: null };
};

/**
 * Review: one session against a read-only workspace that writes only the private review-output directory; the
 * workspace must come back byte-identical (allowed artifact: none), skills included.
 */
const runReview: ArmStrategy = async (input, specs) => {
  const { workspace, progress } = input;
  const [reviewSpec] = specs;
  if (reviewSpec === undefined) throw new TypeError("review arm without a review session");
  // Reference §5.1 review flow: exclusive mkdir (never pre-existing), and no file created in advance, so an absent
  // artifact after the session means "never written".
  const reviewDir = join(input.privateRoot, "review-output");
  await mkdir(reviewDir, { mode: 0o700 });
  // Before the snapshot, so the placeholders are part of the workspace the session must hand back unchanged.
  const placeholders = input.reviewPlaceholders === true ? await prepareReviewWorkspace(workspace, input.privateRoot) : null;
  const snapshotBefore = await snapshotWorkspace(workspace);
  if (!snapshotBefore.ok) throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `before the review session: ${snapshotBefore.error}`);
  progress.sessions.push(await runFreshSession(input, reviewSpec, { reviewOutputHostPath: reviewDir }));
  const snapshotAfter = await snapshotWorkspace(workspace);
  const boundary = snapshotAfter.ok ? checkPhaseWorkspace(snapshotBefore.value, snapshotAfter.value, null) : { ok: false as const, error: `after the review session: ${snapshotAfter.error}` };
  if (placeholders !== null) await removeReviewPlaceholders(workspace, placeholders);
  return { planProduced: true, planFailure: null, reviewFailure: boundary.ok ? null : `the review session changed the workspace: ${boundary.error}`, reviewDir };
};

/** Single-session arms (workflow_direct, baseline, baseline_nomcp): each session in order, no phase checks. */
const runEach: ArmStrategy = async (input, specs) => {
  for (const spec of specs) input.progress.sessions.push(await runFreshSession(input, spec));
  return { planProduced: true, planFailure: null, reviewFailure: null, reviewDir: null };
};

/** The session strategy of each incumbent arm; a candidate arm runs its incumbent's. */
const STRATEGIES: Readonly<Record<IncumbentArm, ArmStrategy>> = { workflow: runWorkflow, review: runReview, workflow_direct: runEach, baseline: runEach, baseline_nomcp: runEach };

/**
 * Runs the sessions of one arm in a prepared cell with its incumbent arm's strategy (workflow: plan then work,
 * review: read-only with a review-output directory, the others: one session each), pushing each finished session into
 * `input.progress`. Trusts the prepared cell; sandbox and evidence errors propagate.
 */
export async function runArmSessions(incumbent: IncumbentArm, input: ArmSessionsInput): Promise<ArmSessionsOutcome> {
  return STRATEGIES[incumbent](input, buildArmSessions(input.arm, input.taskPrompt, input.skills));
}
