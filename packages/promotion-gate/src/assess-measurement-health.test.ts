import { describe, expect, it } from "vitest";
import { aggregateByTaskArm } from "./aggregate.js";
import { assessMeasurementHealth } from "./assess-measurement-health.js";
import type { GateRow } from "./schema.js";

function row(overrides: Partial<GateRow> = {}): GateRow {
  return { task: "t1", arm: "workflow", class: "trivial", error_kind: null, resolved: true, cost_usd: 1, input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, duration_s: 1, num_turns: 1, diff_files: 1, diff_insertions: 1, diff_deletions: 0, transcript_missing: false, ...overrides };
}

const health = (rows: GateRow[]) => assessMeasurementHealth(aggregateByTaskArm(rows));

describe("assessMeasurementHealth (reference §5.8)", () => {
  it("judges the incumbents candidates are measured against (CANDIDATE_ARMS.values()), review and ce_review", () => {
    const failing = { error_kind: "session-error", resolved: false } as const;
    const rows = [row({ arm: "workflow", ...failing }), row({ arm: "workflow_direct", error_kind: "skill-not-invoked" }), row({ arm: "review" }), row({ arm: "ce_review" })];
    expect(health(rows).map((h) => `${h.arm}:${h.status}`)).toEqual(["ce_review:OBSERVED_OK", "review:OBSERVED_OK", "workflow:UNUSABLE", "workflow_direct:UNUSABLE"]);
  });

  it("does not judge a baseline or a candidate arm: a candidate that fails every run is a negative result for the gate", () => {
    const failing = { error_kind: "infra-error", resolved: false } as const;
    const rows = (["baseline", "baseline_nomcp", "candidate_workflow", "candidate_workflow_direct", "candidate_review", "ce_workflow"] as const).map((arm) => row({ arm, ...failing }));
    expect(health([...rows, row({ arm: "workflow" })]).map((h) => `${h.arm}:${h.status}`)).toEqual(["workflow:OBSERVED_OK"]);
  });

  it("sums over tasks: UNUSABLE only when no task gave an admissible row", () => {
    const failing = [row({ task: "t1", error_kind: "session-error", resolved: false }), row({ task: "t2", error_kind: "cleanup-failure", resolved: false })];
    expect(health(failing)).toEqual([{ arm: "workflow", status: "UNUSABLE", freshAttempts: 2, admissible: 0, executionFailures: 2, evidenceFailures: 0, reasons: ["cleanup-failure", "session-error"] }]);
    const oneGood = [...failing, row({ task: "t3" })];
    expect(health(oneGood)[0]).toMatchObject({ status: "DEGRADED", freshAttempts: 3, admissible: 1 });
  });

  it("counts skill-not-invoked as an evidence failure although its rows stay in the medians", () => {
    const rows = [row({ error_kind: "skill-not-invoked", resolved: true }), row({ task: "t2", error_kind: "skill-not-invoked", resolved: false })];
    expect(health(rows)[0]).toMatchObject({ status: "UNUSABLE", evidenceFailures: 2, admissible: 0, reasons: ["skill-not-invoked"] });
  });

  it("is UNKNOWN with only reused rows and OBSERVED_OK for a clean arm; a valid negative is healthy", () => {
    expect(health([row({ reused: true })])[0]?.status).toBe("UNKNOWN");
    expect(health([row(), row({ task: "t2", error_kind: "oracle-failed", resolved: false })])[0]).toMatchObject({ status: "OBSERVED_OK", executionFailures: 0, evidenceFailures: 0 });
  });
});
