import { describe, expect, it } from "vitest";
import { sha256Hex } from "@wfbench/digest";
import { createContaminationTracker } from "./contamination.js";

const patchA = sha256Hex("diff --git a/x b/x\n+same\n");
const patchB = sha256Hex("diff --git a/x b/x\n+other\n");
const cell = (task: string, run: number, arm: string, diff_digest: string | null) => ({ task, run, arm, diff_digest });

describe("createContaminationTracker", () => {
  it("flags the later arm of one task and run with the earlier arms whose non-empty patch is identical", () => {
    const tracker = createContaminationTracker();
    const marked = [cell("t", 0, "workflow", patchA), cell("t", 0, "workflow_direct", patchB), cell("t", 0, "baseline", patchA), cell("t", 0, "candidate_workflow", patchA)].map((row) => tracker.mark(row));
    expect(marked.map((row) => row.contamination_arms)).toEqual([[], [], ["workflow"], ["workflow", "baseline"]]);
  });

  it("never matches across runs or tasks, an empty patch, or a row without a patch", () => {
    const tracker = createContaminationTracker();
    const empty = sha256Hex(new Uint8Array(0));
    const rows = [cell("t", 0, "workflow", patchA), cell("t", 1, "baseline", patchA), cell("u", 0, "baseline", patchA), cell("t", 0, "workflow_direct", null), cell("v", 0, "workflow", empty), cell("v", 0, "baseline", empty)];
    expect(rows.map((row) => tracker.mark(row).contamination_arms)).toEqual([[], [], [], [], [], []]);
  });

  it("ignores review arms: their read-only workspace leaves the case's own patch, the same for every review arm", () => {
    const tracker = createContaminationTracker();
    expect([cell("r", 0, "review", patchA), cell("r", 0, "candidate_review", patchA)].map((row) => tracker.mark(row).contamination_arms)).toEqual([[], []]);
  });

  it("keeps every other field of the row", () => {
    const row = { ...cell("t", 0, "baseline", patchA), cost_usd: 0.5 };
    expect(createContaminationTracker().mark(row)).toEqual({ ...row, contamination_arms: [] });
  });
});
