import { computeSkillFingerprint, listArmSkills } from "@wfbench/cell-pipeline";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import type { Arm, ResultRow } from "@wfbench/result-row";
import type { Template } from "@wfbench/clone-sanitizer";
import { digestTaskPrompt, type ResolvedSource, type SuiteSkills, type Task } from "@wfbench/task-suite";
import { REUSE_MAX_AGE_MS, cellKey, keepHealthCanaries, selectReusableRows, skillKey, type ReuseExpectation, type TaskReuseBinding } from "./comparator-reuse.js";
import { ReuseDriftError, materializeReusedRow, type ReuseSource } from "./materialize-reused-row.js";
import type { TemplateBinding } from "./reuse-templates.js";

/** One planned cell of the sweep. */
export interface PlannedCell {
  readonly task: Task;
  readonly arm: Arm;
  readonly run: number;
}

/** What comparator reuse decided for this sweep. */
export interface ReusePlan {
  /** Rows copied from the source, in canonical order: written before any paid cell. */
  readonly reused: readonly ResultRow[];
  /** The cells still to pay for, in canonical order. */
  readonly paid: readonly PlannedCell[];
  /** One line per key blocked by conflicting duplicates or dropped after a failed copy. */
  readonly notes: readonly string[];
}

/** Everything the sweep knows about its tasks that a reused row must match. */
export interface PlanReuseInput {
  readonly source: ReuseSource;
  readonly cells: readonly PlannedCell[];
  readonly outDir: string;
  readonly model: string;
  readonly effort: string;
  readonly runtimeDigest: string;
  readonly skills: SuiteSkills;
  readonly sources: ReadonlyMap<string, ResolvedSource>;
  /** The prepared templates by task id; a task without one must be in `skippedTemplates`. */
  readonly templates: ReadonlyMap<string, Template>;
  /** Tasks whose template was not prepared (every planned cell reusable): the earlier sweep's binding of each. */
  readonly skippedTemplates?: ReadonlyMap<string, TemplateBinding>;
  readonly oracles: ReadonlyMap<string, OracleSnapshot>;
  readonly now: Date;
  /** The backend this sweep's cells run on; a row recorded on another backend is never carried over. */
  readonly sandboxBackend: "bwrap" | "host-unsafe";
  /** This sweep's CE plugin snapshot (version, manifest digest) when a CE arm runs, else null: CE rows must match it. */
  readonly cePlugin: { readonly version: string; readonly manifestDigest: string } | null;
}

/** The task facts a row must have been measured against (reference §5.6 TaskReuseBinding), from this sweep's inputs. */
export function buildTaskReuseBinding(task: Task, source: ResolvedSource, oracle: OracleSnapshot): TaskReuseBinding {
  return {
    task_base_sha: source.sha,
    task_prompt_digest: digestTaskPrompt(task.prompt),
    oracle_digest: oracle.binding.oracle_digest,
    oracle_command_digest: oracle.binding.oracle_command_digest,
    oracle_manifest_digest: oracle.binding.oracle_manifest_digest,
    task_asset_manifest_digest: source.assets?.manifestDigest ?? null,
    sandbox_dependency_manifest_digest: source.assets?.dependencyManifestDigest ?? null,
    declares_assets: source.assets !== null,
  };
}

/** What a prepared template is to a later sweep: its key, sanitized sha and the skill fingerprint of each arm given. */
export async function describeTemplateBinding(template: Template, templateKey: string, arms: readonly Arm[], skills: SuiteSkills): Promise<TemplateBinding> {
  const skillDigests: Record<string, string | null> = {};
  for (const arm of arms) skillDigests[arm] = await computeSkillFingerprint(template.path, listArmSkills(arm, skills));
  return { template_key: templateKey, sanitized_sha: template.sanitizedSha, skill_digests: skillDigests };
}

/**
 * The facts of this sweep's tasks every carried-over row must match (shared by reuse and resume): a prepared task's
 * skill fingerprints are read from its template; a task whose template was skipped takes them, and the sanitized sha
 * its rows must record, from the earlier sweep's binding for the same template key.
 */
export async function buildReuseExpectation(input: Omit<PlanReuseInput, "source" | "outDir">): Promise<ReuseExpectation> {
  const tasks = new Map<string, TaskReuseBinding>();
  const skillDigests = new Map<string, string | null>();
  const sanitizedShas = new Map<string, string>();
  for (const cell of input.cells) {
    tasks.set(cell.task.id, buildTaskReuseBinding(cell.task, input.sources.get(cell.task.id) as ResolvedSource, input.oracles.get(cell.task.id) as OracleSnapshot));
    const key = skillKey(cell.task.id, cell.arm);
    if (skillDigests.has(key)) continue;
    const template = input.templates.get(cell.task.id);
    if (template !== undefined) {
      skillDigests.set(key, await computeSkillFingerprint(template.path, listArmSkills(cell.arm, input.skills)));
      continue;
    }
    // No template and no record: the arm has no fingerprint, so its rows are refused (rule 8), never waved through.
    const recorded = input.skippedTemplates?.get(cell.task.id);
    if (recorded === undefined) continue;
    sanitizedShas.set(cell.task.id, recorded.sanitized_sha);
    if (Object.hasOwn(recorded.skill_digests, cell.arm)) skillDigests.set(key, recorded.skill_digests[cell.arm] ?? null);
  }
  return { model: input.model, effort: input.effort, sandboxBackend: input.sandboxBackend, runtimeDigest: input.runtimeDigest, now: input.now, maxAgeMs: REUSE_MAX_AGE_MS, tasks, skillDigests, cePluginVersion: input.cePlugin?.version ?? null, cePluginManifestDigest: input.cePlugin?.manifestDigest ?? null, sanitizedShas };
}

/**
 * Reference §5.6 sweep integration: builds the expectation from this sweep's prepared tasks, selects the qualifying
 * rows of the source, keeps one paid canary per arm, and copies each reused row's files (a copy that fails or
 * drifts leaves its cell paid). Returns the reused rows and the cells left to run.
 */
export async function planComparatorReuse(input: PlanReuseInput): Promise<ReusePlan> {
  const expected = await buildReuseExpectation(input);
  const selection = selectReusableRows(input.source.lines, expected);
  const keep = keepHealthCanaries(
    input.cells.map((cell) => ({ task: cell.task.id, arm: cell.arm, run: cell.run })),
    new Set(selection.rows.keys()),
  );
  const notes = [
    ...selection.refused.map(({ line, refusal }) => `${input.source.dir}/results.jsonl line ${line} not reusable: rule ${refusal.rule}, field ${refusal.field || "(row)"}: ${refusal.reason}`),
    ...selection.blocked.map((key) => `conflicting duplicate rows for ${key.split("\u0000").join("/")}: measured fresh`),
  ];
  const reused: ResultRow[] = [];
  const paid: PlannedCell[] = [];
  for (const cell of input.cells) {
    const key = cellKey(cell.task.id, cell.arm, cell.run);
    const row = keep.has(key) ? selection.rows.get(key) : undefined;
    if (row === undefined) {
      paid.push(cell);
      continue;
    }
    try {
      reused.push(await materializeReusedRow(input.source, row, input.outDir, input.now));
    } catch (error) {
      if (!(error instanceof ReuseDriftError)) throw error;
      notes.push(`[${cell.task.id}][${cell.arm}][run ${cell.run}] not reused (${error.message}): measured fresh`);
      paid.push(cell);
    }
  }
  return { reused, paid, notes };
}
