import { canonicalJson, digestJson, sha256Hex } from "@wfbench/digest";
import { z } from "zod";

/** The file every sweep writes beside results.jsonl: its full cell plan, its identity and its shard. */
export const SWEEP_PLAN_FILE = "sweep-plan.json";
/** Largest N of `--shard k/N`. */
export const MAX_SHARDS = 1000;

/** One shard of a sweep: `index` of `count`, both 1-based (`--shard 2/3` is index 2 of 3). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** A planned cell: the (task id, arm, 0-based run) triple the shard assignment hashes. */
export interface PlannedCell {
  readonly task: string;
  readonly arm: string;
  readonly run: number;
}

/**
 * Parses `k/N` (1 ≤ k ≤ N ≤ MAX_SHARDS, plain decimal). Trusts nothing in `raw`; the refusal says what a value looks
 * like.
 */
export function parseShardSpec(raw: string): { readonly ok: true; readonly value: ShardSpec } | { readonly ok: false; readonly message: string } {
  const match = /^([1-9]\d{0,3})\/([1-9]\d{0,3})$/u.exec(raw);
  if (match === null) return { ok: false, message: `--shard needs k/N with whole numbers 1 ≤ k ≤ N (e.g. --shard 1/3), got ${JSON.stringify(raw)}` };
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count > MAX_SHARDS) return { ok: false, message: `--shard ${raw}: N must be at most ${MAX_SHARDS}` };
  if (index > count) return { ok: false, message: `--shard ${raw}: k must be between 1 and N=${count} (shards are numbered from 1)` };
  return { ok: true, value: { index, count } };
}

/** A cell's stable key: canonical JSON of [task, arm, run], also the merge's identity of a cell. */
export function cellKey(cell: PlannedCell): string {
  return canonicalJson([cell.task, cell.arm, cell.run]);
}

/**
 * The 1-based shard a cell belongs to among `count`: sha256 of its key, first 48 bits, modulo count. It depends on the
 * cell alone, never on its position, so reordering the tasks file (or adding a task) moves no other cell.
 */
export function assignShard(cell: PlannedCell, count: number): number {
  return (Number.parseInt(sha256Hex(cellKey(cell)).slice(0, 12), 16) % count) + 1;
}

/** The cells of `plan` that `shard` runs, in plan order; every cell when `shard` is null (an unsharded sweep). */
export function selectShardCells<Cell>(plan: readonly Cell[], shard: ShardSpec | null, identify: (cell: Cell) => PlannedCell): Cell[] {
  return shard === null ? [...plan] : plan.filter((cell) => assignShard(identify(cell), shard.count) === shard.index);
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/u);

/**
 * What makes two shards parts of one sweep: every setting and input digest the rows depend on. Row-level facts the
 * sweep does not choose (sandbox backend, runtime digest, CE plugin) are compared row by row at merge.
 */
export const SweepIdentitySchema = z.strictObject({
  model: z.string(),
  effort: z.string(),
  proposer_model: z.string().nullable(),
  upstream: z.string(),
  claude_code_version: z.string(),
  arms: z.array(z.string()),
  repeats: z.int().min(1),
  selected_tasks: z.array(z.string()),
  skipped_expensive_tasks: z.array(z.string()),
  /** The selected tasks' bindings (reference §3.1), as promotion.json records them. */
  task_bindings: z.array(z.looseObject({ id: z.string() })),
  candidate_overlay_digest: hex64.nullable(),
  target_base_digests: z.record(z.string(), hex64),
  /** The gate's thresholds; only candidate sweeps use them, but a merge must not mix two gates. */
  promotion: z.strictObject({ metric: z.string(), min_runs: z.int(), min_improvement_pct: z.number(), max_task_regression_pct: z.number() }),
});

/** A sweep's identity. */
export type SweepIdentity = z.infer<typeof SweepIdentitySchema>;

/** sweep-plan.json, schema 1. */
export const SweepPlanSchema = z.strictObject({
  schema_version: z.literal(1),
  identity: SweepIdentitySchema,
  /** sha256 of the canonical JSON of `identity`: equal digests, one sweep. */
  identity_digest: hex64,
  /** Null for an unsharded sweep. */
  shard: z.strictObject({ index: z.int().min(1), count: z.int().min(1).max(MAX_SHARDS) }).nullable(),
  /** The overlay directory the candidate cells used (promotion.json's `candidate_overlay`); null without one. */
  candidate_overlay: z.string().nullable(),
  /** Every cell of the whole sweep in canonical (task, run, arm) order, this shard's and the others'. */
  cells: z.array(z.strictObject({ task: z.string().min(1), arm: z.string().min(1), run: z.int().min(0) })),
});

/** sweep-plan.json. */
export type SweepPlan = z.infer<typeof SweepPlanSchema>;

/** Builds the plan file's contents; the identity digest is computed here, so it always matches the identity. */
export function buildSweepPlan(input: { identity: SweepIdentity; shard: ShardSpec | null; candidateOverlay: string | null; cells: readonly PlannedCell[] }): SweepPlan {
  return {
    schema_version: 1,
    identity: input.identity,
    identity_digest: digestJson(input.identity),
    shard: input.shard === null ? null : { index: input.shard.index, count: input.shard.count },
    candidate_overlay: input.candidateOverlay,
    cells: input.cells.map((cell) => ({ task: cell.task, arm: cell.arm, run: cell.run })),
  };
}

/** sweep-plan.json's text: indent 2, trailing newline. */
export function formatSweepPlan(plan: SweepPlan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
