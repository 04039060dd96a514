import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mergeShards } from "./merge-shards.js";
import { SWEEP_PLAN_FILE, buildSweepPlan, formatSweepPlan } from "./shard-plan.js";

const identity = {
  model: "m", effort: "xhigh", proposer_model: null, upstream: "scripted", claude_code_version: "2.1.0", arms: ["baseline"], repeats: 1, selected_tasks: ["alpha"], skipped_expensive_tasks: [],
  task_bindings: [{ id: "alpha", setup: null }], candidate_overlay_digest: null, target_base_digests: {}, promotion: { metric: "cost_usd", min_runs: 3, min_improvement_pct: 5, max_task_regression_pct: 20 },
};

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfbench-merge-shards-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function shardWithPlanText(text: string): Promise<string> {
  const shard = join(dir, "shard");
  await import("node:fs/promises").then((fs) => fs.mkdir(shard));
  await writeFile(join(shard, SWEEP_PLAN_FILE), text);
  return shard;
}

describe("mergeShards reading a shard's plan", () => {
  const plan = formatSweepPlan(buildSweepPlan({ identity, shard: null, candidateOverlay: null, cells: [{ task: "alpha", arm: "baseline", run: 0 }] }));

  it("refuses an identity edited from null to 1e400, which used to digest alike and pass", async () => {
    const shard = await shardWithPlanText(plan.replace('"setup": null', '"setup": 1e400'));
    await expect(mergeShards({ out: join(dir, "out"), shardDirs: [shard], now: new Date(0) })).rejects.toMatchObject({
      code: "SWEEP_BAD_INPUT",
      message: expect.stringMatching(/sweep-plan\.json identity has no canonical JSON .*Infinity/u) as unknown,
    });
  });

  it("refuses an identity nested too deeply to digest as bad input, not a stack overflow", async () => {
    const shard = await shardWithPlanText(plan.replace('"setup": null', `"setup": ${"[".repeat(100_000)}${"]".repeat(100_000)}`));
    await expect(mergeShards({ out: join(dir, "out"), shardDirs: [shard], now: new Date(0) })).rejects.toMatchObject({
      code: "SWEEP_BAD_INPUT",
      message: expect.stringMatching(/identity has no canonical JSON .*nests more than 5,000 levels/u) as unknown,
    });
  });

  it("still reads an unedited plan past the identity check", async () => {
    const shard = await shardWithPlanText(plan);
    await expect(mergeShards({ out: join(dir, "out"), shardDirs: [shard], now: new Date(0) })).rejects.toMatchObject({ message: expect.stringMatching(/has no report-provenance/u) as unknown });
  });
});
