import { describe, expect, it } from "vitest";
import { assignShard, buildSweepPlan, parseShardSpec, selectShardCells, SweepPlanSchema, type PlannedCell } from "./shard-plan.js";

function plan(tasks: readonly string[], arms: readonly string[], repeats: number): PlannedCell[] {
  const cells: PlannedCell[] = [];
  for (const task of tasks) for (let run = 0; run < repeats; run += 1) for (const arm of arms) cells.push({ task, arm, run });
  return cells;
}
const same = (cell: PlannedCell): PlannedCell => cell;
const key = (cell: PlannedCell): string => `${cell.task}/${cell.arm}/${cell.run}`;

describe("parseShardSpec", () => {
  it("takes k/N with 1 ≤ k ≤ N", () => {
    expect(parseShardSpec("2/3")).toEqual({ ok: true, value: { index: 2, count: 3 } });
    expect(parseShardSpec("1/1")).toEqual({ ok: true, value: { index: 1, count: 1 } });
  });
  it.each(["0/3", "4/3", "3", "1/0", "-1/3", "1/3/4", " 1/3", "1.0/3", "01/3", "1/1001"])("refuses %j naming the fix", (raw) => {
    const parsed = parseShardSpec(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(/--shard/u);
  });
});

describe("shard assignment", () => {
  const tasks = ["alpha", "beta", "gamma", "delta", "epsilon"];
  const arms = ["workflow", "workflow_direct", "baseline"];
  const cells = plan(tasks, arms, 3);

  it("puts every cell in exactly one of N shards", () => {
    for (const count of [1, 2, 3, 7]) {
      const shards = Array.from({ length: count }, (_, i) => selectShardCells(cells, { index: i + 1, count }, same).map(key));
      expect(shards.flat().sort()).toEqual(cells.map(key).sort());
      expect(new Set(shards.flat()).size).toBe(cells.length);
    }
  });

  it("does not change when the tasks file is reordered or grows", () => {
    const reordered = plan([...tasks].reverse(), arms, 3);
    const grown = plan(["zeta", ...tasks, "eta"], arms, 3);
    for (let index = 1; index <= 3; index += 1) {
      const before = new Set(selectShardCells(cells, { index, count: 3 }, same).map(key));
      expect(new Set(selectShardCells(reordered, { index, count: 3 }, same).map(key))).toEqual(before);
      expect(new Set(selectShardCells(grown, { index, count: 3 }, same).map(key).filter((k) => !k.startsWith("zeta/") && !k.startsWith("eta/")))).toEqual(before);
    }
  });

  it("keeps plan order within a shard, spreads cells over every shard, and an unsharded sweep runs them all", () => {
    const first = selectShardCells(cells, { index: 1, count: 3 }, same);
    expect(first).toEqual(cells.filter((cell) => assignShard(cell, 3) === 1));
    for (let index = 1; index <= 3; index += 1) expect(selectShardCells(cells, { index, count: 3 }, same).length).toBeGreaterThan(0);
    expect(selectShardCells(cells, null, same)).toEqual(cells);
  });

  it("is pinned: the assignment of a known cell never drifts between versions", () => {
    expect([1, 2, 3].map((run) => assignShard({ task: "alpha", arm: "baseline", run }, 3))).toEqual([2, 2, 1]);
  });
});

describe("buildSweepPlan", () => {
  it("records the identity with its digest, and the schema accepts it", () => {
    const identity = { model: "m", effort: "xhigh", proposer_model: null, upstream: "scripted", claude_code_version: "2.1.0", arms: ["baseline"], repeats: 1, selected_tasks: ["alpha"], skipped_expensive_tasks: [], task_bindings: [{ id: "alpha" }], candidate_overlay_digest: null, target_base_digests: {}, promotion: { metric: "cost_usd", min_runs: 3, min_improvement_pct: 5, max_task_regression_pct: 20 } };
    const built = buildSweepPlan({ identity, shard: { index: 1, count: 2 }, candidateOverlay: null, cells: [{ task: "alpha", arm: "baseline", run: 0 }] });
    expect(SweepPlanSchema.parse(built)).toEqual(built);
    expect(built.identity_digest).toMatch(/^[0-9a-f]{64}$/u);
    expect(buildSweepPlan({ identity: { ...identity, effort: "low" }, shard: null, candidateOverlay: null, cells: [] }).identity_digest).not.toBe(built.identity_digest);
  });
});
