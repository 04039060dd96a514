import { describe, expect, it } from "vitest";
import { aggregate, aggregateByTaskArm } from "./aggregate.js";
import type { GateRow } from "./schema.js";

function row(overrides: Partial<GateRow> = {}): GateRow {
  return {
    task: "t1",
    arm: "workflow",
    class: "trivial",
    error_kind: null,
    resolved: true,
    cost_usd: 1.0,
    input_tokens: 100,
    cache_creation_input_tokens: 10,
    cache_read_input_tokens: 1000,
    output_tokens: 50,
    duration_s: 60,
    num_turns: 5,
    diff_files: 2,
    diff_insertions: 30,
    diff_deletions: 5,
    transcript_missing: false,
    ...overrides,
  };
}

describe("aggregate", () => {
  it("gives exact medians and counts over a mixed set of rows", () => {
    const rows = [
      row({ output_tokens: 10, cost_usd: 0.5 }),
      row({ output_tokens: 30, cost_usd: 0.7, resolved: false, error_kind: "verify-failed" }),
      row({ output_tokens: 20, cost_usd: 0.6, transcript_missing: true }),
      row({ output_tokens: 999, cost_usd: 9, resolved: false, error_kind: "session-error" }),
      row({ output_tokens: 40, cost_usd: 0.8, reused: true }),
    ];
    expect(aggregate(rows)).toEqual({
      class: "trivial",
      runs: 5,
      valid_runs: 4,
      excluded_runs: 1,
      resolved: 3,
      resolved_fresh: 2,
      fresh_attempts: 4,
      execution_failures: 1,
      evidence_failures: 1,
      admissible: 2,
      health_reasons: ["session-error", "transcript-missing"],
      transcripts_missing: 1,
      error_kinds: { "verify-failed": 1, "session-error": 1 },
      input_tokens: 100,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 1000,
      output_tokens: 25,
      duration_s: 60,
      num_turns: 5,
      diff_files: 2,
      diff_insertions: 30,
      diff_deletions: 5,
      // Rows without wire_cost_usd predate the gateway: their CLI cost is their cost of record.
      cost_usd: (0.6 + 0.7) / 2,
      cli_cost_usd: (0.6 + 0.7) / 2,
    });
  });

  it("takes the gateway's wire cost as the cost of record and keeps the CLI's beside it", () => {
    // The wire sees what the CLI's figure misses (a subagent, a request outside the CLI); the gate must read the wire.
    const result = aggregate([row({ cost_usd: 0.1, wire_cost_usd: 0.3 }), row({ cost_usd: 0.2, wire_cost_usd: 0.5 })]);
    expect(result.cost_usd).toBeCloseTo(0.4, 12);
    expect(result.cli_cost_usd).toBeCloseTo(0.15, 12);
    // An unpriced wire cost stays unknown, never falling back to the CLI's figure or becoming 0.
    const unpriced = aggregate([row({ cost_usd: 0.1, wire_cost_usd: null }), row({ cost_usd: 0.2, wire_cost_usd: 0.5 })]);
    expect(unpriced.cost_usd).toBeNull();
    expect(unpriced.cli_cost_usd).toBeCloseTo(0.15, 12);
  });

  it.each(["session-error", "infra-error", "evidence-unverified", "cleanup-failure", "review-evidence-invalid", "cancelled"] as const)(
    "excludes %s rows from medians",
    (kind) => {
      const result = aggregate([row({ output_tokens: 10 }), row({ output_tokens: 1000, error_kind: kind, resolved: false })]);
      expect(result.valid_runs).toBe(1);
      expect(result.excluded_runs).toBe(1);
      expect(result.output_tokens).toBe(10);
    },
  );

  it("keeps skill-not-invoked rows in medians but counts them as evidence failures", () => {
    const result = aggregate([row({ output_tokens: 10 }), row({ output_tokens: 30, error_kind: "skill-not-invoked" })]);
    expect(result.valid_runs).toBe(2);
    expect(result.output_tokens).toBe(20);
    expect(result.evidence_failures).toBe(1);
    expect(result.health_reasons).toEqual(["skill-not-invoked"]);
  });

  it("excludes review_evidence_valid=false whatever the primary kind and reports it as review-evidence-invalid", () => {
    const result = aggregate([row(), row({ error_kind: "oracle-failed", review_evidence_valid: false, resolved: false })]);
    expect(result.valid_runs).toBe(1);
    expect(result.health_reasons).toEqual(["review-evidence-invalid"]);
  });

  it("counts a row failing both ways once per class and never as admissible", () => {
    const result = aggregate([row({ error_kind: "session-error", transcript_missing: true, resolved: false })]);
    expect(result).toMatchObject({ execution_failures: 1, evidence_failures: 1, admissible: 0, fresh_attempts: 1 });
  });

  it("makes cost null when any valid cost is unmeasured, and keeps a measured 0", () => {
    expect(aggregate([row({ cost_usd: 1 }), row({ cost_usd: null })]).cost_usd).toBeNull();
    expect(aggregate([row({ cost_usd: 0 }), row({ cost_usd: 0 })]).cost_usd).toBe(0);
    expect(aggregate([row({ cost_usd: 1 }), row({ cost_usd: null, error_kind: "infra-error" })]).cost_usd).toBe(1);
  });

  it("gives zero medians and null cost when no row is valid", () => {
    const result = aggregate([row({ error_kind: "infra-error", resolved: false })]);
    expect(result).toMatchObject({ valid_runs: 0, output_tokens: 0, duration_s: 0, cost_usd: null });
  });

  it("adds review metrics only when a valid row carries review_weighted_f1, with min blocker recall and all() verdicts", () => {
    const review = (f1: number | null, blocker: number, verdict: boolean): GateRow =>
      row({
        review_weighted_f1: f1,
        review_blocker_recall: blocker,
        review_false_positives: 1,
        review_verdict_correct: verdict,
        review_clean_control: false,
        review_clean_pass: false,
        review_evidence_valid: true,
      });
    const result = aggregate([review(0.2, 1, true), review(0.8, 0.5, true), review(0.5, 1, false)]);
    expect(result.review_weighted_f1).toBe(0.5);
    expect(result.review_blocker_recall).toBe(0.5);
    expect(result.review_verdict_correct).toBe(false);
    expect(result.review_clean_control).toBe(false);
    // A metric missing on one valid repeat is null for the whole arm.
    expect(result.review_precision).toBeNull();
    expect(aggregate([review(null, 1, true), review(0.5, 1, true)]).review_weighted_f1).toBeNull();
    expect("review_weighted_f1" in aggregate([row()])).toBe(false);
  });

  it("makes verdict correctness null when a valid repeat has no verdict", () => {
    const result = aggregate([
      row({ review_weighted_f1: 1, review_verdict_correct: true }),
      row({ review_weighted_f1: 1, review_verdict_correct: null }),
    ]);
    expect(result.review_verdict_correct).toBeNull();
    expect(result.review_clean_pass).toBeNull();
  });

  it("refuses an empty list", () => {
    expect(() => aggregate([])).toThrow(RangeError);
  });
});

describe("aggregateByTaskArm", () => {
  it("groups by task and arm", () => {
    const results = aggregateByTaskArm([row({ task: "a" }), row({ task: "b", arm: "candidate_workflow" }), row({ task: "a" })]);
    expect(results["a"]?.["workflow"]?.runs).toBe(2);
    expect(results["b"]?.["candidate_workflow"]?.runs).toBe(1);
  });
});

describe("aggregate: audit findings", () => {
  it("lists a promotion metric some valid run left unmeasured, and only then", () => {
    const measured = aggregate([row(), row()]);
    expect(measured).not.toHaveProperty("unmeasured_metrics");
    const partial = aggregate([row({ output_tokens: null, num_turns: null }), row(), row({ duration_s: null, error_kind: "infra-error", resolved: false })]);
    // Excluded rows never enter medians, so the infra-error row's missing duration does not count.
    expect(partial.unmeasured_metrics).toEqual(["num_turns", "output_tokens"]);
  });

  it("writes error_kinds in code-point order whatever order the rows came in", () => {
    const a = row({ error_kind: "verify-failed", resolved: false });
    const b = row({ error_kind: "oracle-failed", resolved: false });
    expect(JSON.stringify(aggregate([a, b]).error_kinds)).toBe(JSON.stringify(aggregate([b, a]).error_kinds));
    expect(Object.keys(aggregate([a, b]).error_kinds)).toEqual(["oracle-failed", "verify-failed"]);
  });
});
