import { computeSkillFingerprint, listArmSkills } from "@wfbench/cell-pipeline";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import type { Arm, ResultRow } from "@wfbench/result-row";
import type { Template } from "@wfbench/clone-sanitizer";
import { digestTaskPrompt, type ResolvedSource, type SuiteSkills, type Task } from "@wfbench/task-suite";
import { REUSE_MAX_AGE_MS, cellKey, keepHealthCanaries, selectReusableRows, skillKey, type ReuseExpectation, type TaskReuseBinding } from "./comparator-reuse.js";
import { ReuseDriftError, materializeReusedRow, type ReuseSource } from "./materialize-reused-row.js";

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
  readonly templates: ReadonlyMap<string, Template>;
  readonly oracles: ReadonlyMap<string, OracleSnapshot>;
  readonly now: Date;
  /** The backend this sweep's cells run on; a row recorded on another backend is never carried over. */
  readonly sandboxBackend: "bwrap" | "host-unsafe";
  /** This sweep's CE plugin snapshot (version, manifest digest) when a CE arm runs, else null: CE rows must match it. */
  readonly cePlugin: { readonly version: string; readonly manifestDigest: string } | null;
}

/** The facts of this sweep's prepared tasks every carried-over row must match (shared by reuse and resume). */
export async function buildReuseExpectation(input: Omit<PlanReuseInput, "source" | "outDir">): Promise<ReuseExpectation> {
  const tasks = new Map<string, TaskReuseBinding>();
  const skillDigests = new Map<string, string | null>();
  for (const cell of input.cells) {
    const source = input.sources.get(cell.task.id) as ResolvedSource;
    const oracle = (input.oracles.get(cell.task.id) as OracleSnapshot).binding;
    tasks.set(cell.task.id, {
      task_base_sha: source.sha,
      task_prompt_digest: digestTaskPrompt(cell.task.prompt),
      oracle_digest: oracle.oracle_digest,
      oracle_command_digest: oracle.oracle_command_digest,
      oracle_manifest_digest: oracle.oracle_manifest_digest,
      task_asset_manifest_digest: source.assets?.manifestDigest ?? null,
      sandbox_dependency_manifest_digest: source.assets?.dependencyManifestDigest ?? null,
      declares_assets: source.assets !== null,
    });
    const key = skillKey(cell.task.id, cell.arm);
    if (!skillDigests.has(key)) skillDigests.set(key, await computeSkillFingerprint((input.templates.get(cell.task.id) as Template).path, listArmSkills(cell.arm, input.skills)));
  }
  return { model: input.model, effort: input.effort, sandboxBackend: input.sandboxBackend, runtimeDigest: input.runtimeDigest, now: input.now, maxAgeMs: REUSE_MAX_AGE_MS, tasks, skillDigests, cePluginVersion: input.cePlugin?.version ?? null, cePluginManifestDigest: input.cePlugin?.manifestDigest ?? null };
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
