import { describe, expect, it } from "vitest";
import { implementationPolicy, makeAggregate } from "../test/support/aggregates.js";
import { MAIN_LOOP_ONLY_WARNING } from "./constants.js";
import { aggregateByTaskArm } from "./aggregate.js";
import { evaluateImplementationCandidate } from "./evaluate-implementation-candidate.js";
import type { Aggregate, AggregatedResults, GateRow, ImplementationPolicy } from "./schema.js";

type Pair = readonly [Partial<Aggregate>, Partial<Aggregate>];

function results(pairs: Readonly<Record<string, Pair>>): AggregatedResults {
  const out: Record<string, Record<string, Aggregate>> = {};
  for (const [task, [inc, cand]] of Object.entries(pairs)) out[task] = { workflow: makeAggregate(inc), candidate_workflow: makeAggregate(cand) };
  return out;
}

function decide(pairs: Readonly<Record<string, Pair>>, policy: Partial<ImplementationPolicy> = {}, model: string | null = "claude-x") {
  return evaluateImplementationCandidate({
    results: results(pairs),
    incumbentArm: "workflow",
    candidateArm: "candidate_workflow",
    policy: implementationPolicy(policy),
    model,
  });
}

const cheaper = (cost: number): Pair => [{ cost_usd: 1.0 }, { cost_usd: cost }];

describe("evaluateImplementationCandidate", () => {
  it("decides cost_usd on the cost of record (wire), not on the CLI's own figure", () => {
    // The candidate looks 50% cheaper to the CLI but spends more on the wire (e.g. requests its CLI never shows).
    const rows = (arm: "workflow" | "candidate_workflow", cli: number, wire: number): GateRow[] => [0, 1, 2].map(() => ({ task: "a", arm, class: "trivial", error_kind: null, resolved: true, cost_usd: cli, wire_cost_usd: wire, input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, duration_s: 1, num_turns: 1, diff_files: 1, diff_insertions: 1, diff_deletions: 0, transcript_missing: false }));
    const aggregated = aggregateByTaskArm([...rows("workflow", 1.0, 1.0), ...rows("candidate_workflow", 0.5, 1.2)]);
    const result = evaluateImplementationCandidate({ results: aggregated, incumbentArm: "workflow", candidateArm: "candidate_workflow", policy: implementationPolicy({}), model: "claude-x" });
    expect(aggregated["a"]?.["candidate_workflow"]).toMatchObject({ cost_usd: 1.2, cli_cost_usd: 0.5 });
    expect(result.decision).toBe("keep_incumbent");
    expect(result.tasks[0]?.improvement_pct).toBe(-20);
  });

  describe("median improvement threshold", () => {
    it.each([
      [0.95, "promote", 5.0],
      [0.951, "keep_incumbent", 4.9],
      [0.89, "promote", 11.0],
    ] as const)("candidate cost %s gives %s (median %s%%)", (cost, decision, median) => {
      const result = decide({ a: cheaper(cost), b: cheaper(cost) });
      expect(result.decision).toBe(decision);
      expect(result.median_improvement_pct).toBe(median);
    });

    it("promotes on an 11% output_tokens improvement with the main-loop warning", () => {
      const result = decide({ a: [{ output_tokens: 1000 }, { output_tokens: 890 }] }, { metric: "output_tokens" });
      expect(result.decision).toBe("promote");
      expect(result.metric_warning).toBe(MAIN_LOOP_ONLY_WARNING);
      expect(result.reasons).toEqual(["median output_tokens improvement 11.0% meets the 5.0% threshold"]);
    });

    it.each([
      ["num_turns", MAIN_LOOP_ONLY_WARNING],
      ["duration_s", null],
      ["cost_usd", null],
    ] as const)("warns on %s only when main-loop-only", (metric, warning) => {
      expect(decide({ a: cheaper(0.5) }, { metric }).metric_warning).toBe(warning);
    });

    it("rounds 400 → 391 output tokens to 2.2 like Python", () => {
      const result = decide({ a: [{ output_tokens: 400 }, { output_tokens: 391 }] }, { metric: "output_tokens" });
      expect(result.tasks[0]?.improvement_pct).toBe(2.2);
    });
  });

  describe("minimum runs, exclusions and equal counts", () => {
    it.each([
      [3, "promote"],
      [2, "insufficient_evidence"],
    ] as const)("%s valid runs per arm gives %s", (runs, decision) => {
      const result = decide({ a: [{ runs, cost_usd: 1 }, { runs, cost_usd: 0.5 }] });
      expect(result.decision).toBe(decision);
      if (decision !== "promote") expect(result.reasons).toContain("a: needs at least 3 valid runs per arm (incumbent 2, candidate 2)");
    });

    it.each([
      [0, "promote"],
      [1, "insufficient_evidence"],
    ] as const)("%s excluded runs gives %s", (excluded, decision) => {
      const result = decide({ a: [{ runs: 3 + excluded, excluded_runs: excluded }, { runs: 3 + excluded, excluded_runs: excluded, cost_usd: 0.5 }] });
      expect(result.decision).toBe(decision);
      if (excluded > 0) expect(result.reasons).toContain("a: promotion requires zero excluded runs in both paired arms (incumbent 1, candidate 1)");
    });

    it("refuses unequal valid counts", () => {
      const result = decide({ a: [{ runs: 3 }, { runs: 4, cost_usd: 0.5 }] });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("a: unequal valid run counts (incumbent 3, candidate 4)");
    });
  });

  describe("quality", () => {
    it("never trades resolution for cost", () => {
      const result = decide({ a: [{ resolved: 3 }, { resolved: 2, cost_usd: 0.1 }] });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("a: resolution regressed from 100.0% to 66.7%");
    });

    it("enforces the floor when the incumbent resolves at least once", () => {
      const result = decide({ a: [{ resolved: 1 }, { resolved: 2, cost_usd: 0.5 }], b: cheaper(0.5) });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("a: quality floor failed: the candidate resolved 2/3 valid runs and must resolve every one");
    });

    it("allows partial progress on a task the incumbent never resolves", () => {
      const result = decide({ a: [{ resolved: 0 }, { resolved: 2, cost_usd: 0.5 }], b: cheaper(0.5) });
      expect(result.tasks[0]).toMatchObject({ quality_floor_enforced: false, candidate_quality_floor_met: false, gated: true });
      expect(result.decision).toBe("promote");
    });

    it("enforces the floor when a skill was not invoked, even if the incumbent never resolves", () => {
      const result = decide({ a: [{ resolved: 0, error_kinds: { "skill-not-invoked": 1 } }, { resolved: 2, cost_usd: 0.5 }], b: cheaper(0.5) });
      expect(result.tasks[0]).toMatchObject({ quality_floor_enforced: true, skill_attributable_failure: true });
      expect(result.decision).toBe("keep_incumbent");
    });
  });

  describe("regressions: aggregates no sweep produces, and the empty candidate", () => {
    it("reports the quality floor unmet when the candidate has no valid run (the original's false, not a vacuous true)", () => {
      const result = decide({ a: [{ resolved: 1 }, { runs: 3, excluded_runs: 3, resolved: 0, error_kinds: { "infra-error": 3 } }], b: cheaper(0.5) });
      expect(result.tasks[0]).toMatchObject({ candidate_resolved: "0/0", quality_floor_enforced: true, candidate_quality_floor_met: false });
      expect(result.reasons).toContain("a: quality floor failed: the candidate resolved 0/0 valid runs and must resolve every one");
      expect(result.decision).toBe("insufficient_evidence");
    });

    it.each<[string, Partial<Aggregate>, string]>([
      ["resolved above valid_runs", { runs: 3, excluded_runs: 1, resolved: 3 }, "resolved"],
      ["runs that are not valid + excluded", { runs: 3, valid_runs: 3, excluded_runs: 1 }, "runs"],
      ["more missing transcripts than runs", { transcripts_missing: 4 }, "transcripts_missing"],
      ["more fresh attempts than runs", { fresh_attempts: 4 }, "fresh_attempts"],
      ["an error kind counted more often than there are runs", { resolved: 0, error_kinds: { "verify-failed": 4 } }, "error_kinds.verify-failed"],
      // §5.3 "error_kinds contains skill-not-invoked" means a count above zero; a zero count is listed by no sweep.
      ["skill-not-invoked counted zero times", { error_kinds: { "skill-not-invoked": 0 } }, "error_kinds.skill-not-invoked"],
      ["an error kind outside §4.3", { error_kinds: { timeout: 1 } }, "error_kinds.timeout"],
      ["excluded kinds on rows that are not excluded", { resolved: 2, error_kinds: { "session-error": 1 } }, "excluded_runs"],
    ])("refuses %s instead of deciding, naming task, arm and field", (_name, candidate, field) => {
      expect(() => decide({ a: [{}, { cost_usd: 0.5, ...candidate }] })).toThrow(
        expect.objectContaining({ name: "AggregateInvariantError", code: "PROMOTION_AGGREGATE_INVALID", task: "a", arm: "candidate_workflow", field }),
      );
    });

    it("refuses a broken incumbent too", () => {
      expect(() => decide({ a: [{ resolved: 4 }, { cost_usd: 0.5 }] })).toThrow(expect.objectContaining({ arm: "workflow", field: "resolved" }));
    });
  });

  describe("per-task efficiency cap (exactly at and just past)", () => {
    // Task a gives a resolution margin of 2 so the decision is promote unless the cap fires on task b.
    const withMargin = (candCost: number) => decide({ a: [{ resolved: 1 }, { resolved: 3 }], b: cheaper(candCost) });
    it("keeps a regression of exactly 20.0%", () => {
      expect(withMargin(1.2).decision).toBe("promote");
      expect(withMargin(1.2).reasons).toContain("improves total task resolution by 2 runs across the paired tasks");
    });
    it("refuses a regression of 20.1%", () => {
      const result = withMargin(1.201);
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("b: cost_usd regressed 20.1% (beyond the 20.0% task cap)");
    });
  });

  describe("resolution margin", () => {
    it("promotes on a margin of exactly 2 with no efficiency gain", () => {
      expect(decide({ a: [{ resolved: 1 }, { resolved: 3 }], b: cheaper(1.0) }).decision).toBe("promote");
    });
    it("treats a margin of 1 as noise and falls back on the median", () => {
      const result = decide({ a: [{ resolved: 0 }, { resolved: 1 }], b: cheaper(1.0) });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toEqual([
        "a resolution margin of 1 run is within the noise floor; the decision rests on efficiency",
        "median cost_usd improvement 0.0% is below the 5.0% threshold",
      ]);
    });
  });

  describe("ungated tasks", () => {
    const unresolved = (candCost: number): Pair => [{ resolved: 0 }, { resolved: 0, cost_usd: candCost }];

    it("ungates a fully measured mutually unresolved task and checks only the failed-task cap (exactly 100%)", () => {
      const result = decide({ a: cheaper(0.5), z: unresolved(2.0) });
      expect(result.ungated_tasks).toEqual(["z"]);
      expect(result.gated_tasks).toEqual(["a"]);
      expect(result.decision).toBe("promote");
      expect(result.reasons[0]).toBe(
        "ungated tasks (fully measured, neither arm resolved a run; held only to the failed-task cap): z; gated 1/2",
      );
    });

    it("refuses spend beyond the failed-task cap (100.1%)", () => {
      const result = decide({ a: cheaper(0.5), z: unresolved(2.001) });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("z: cost_usd regressed 100.1% on a task neither arm resolves (beyond the 100.0% failed-task cap)");
    });

    it("keeps a mutually unresolved task gated when a skill was not invoked", () => {
      const result = decide({ a: cheaper(0.5), z: [{ resolved: 0, error_kinds: { "skill-not-invoked": 1 } }, { resolved: 0, cost_usd: 0.5 }] });
      expect(result.ungated_tasks).toEqual([]);
    });

    it("keeps a mutually unresolved task gated when it is not fully measured", () => {
      expect(decide({ z: [{ resolved: 0, runs: 2 }, { resolved: 0, runs: 2 }] }).ungated_tasks).toEqual([]);
    });

    it("accepts exactly half the tasks gated", () => {
      expect(decide({ a: cheaper(0.5), z: unresolved(0.5) }).decision).toBe("promote");
    });

    it("refuses fewer than half gated as too thin", () => {
      const result = decide({ a: cheaper(0.5), y: unresolved(0.5), z: unresolved(0.5) });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("evidence base is too thin: only 1 of 3 tasks are gated (need at least 50.0%)");
    });

    it("refuses when no task is gated", () => {
      const result = decide({ z: unresolved(0.5) });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("no task supplied quality signal: every task was ungated");
    });
  });

  describe("metric availability", () => {
    it("refuses an unmeasured cost", () => {
      const result = decide({ a: [{ cost_usd: null }, { cost_usd: 0.5 }] });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("a: cost_usd was not measured on every run (metric unavailable)");
    });
    it("refuses an incumbent metric of 0", () => {
      const result = decide({ a: [{ cost_usd: 0 }, { cost_usd: 0 }] });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("a: incumbent cost_usd is 0, so no improvement can be computed");
    });
  });

  describe("structural refusals", () => {
    it("needs a named model", () => {
      expect(decide({ a: cheaper(0.5) }, {}, null).decision).toBe("insufficient_evidence");
      expect(decide({ a: cheaper(0.5) }, {}, " ").reasons[0]).toMatch(/named --model is required/);
    });
    it("refuses a task missing one arm", () => {
      const result = evaluateImplementationCandidate({
        results: { ...results({ a: cheaper(0.5) }), b: { workflow: makeAggregate() } },
        incumbentArm: "workflow",
        candidateArm: "candidate_workflow",
        policy: implementationPolicy(),
        model: "m",
      });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons).toContain("b: candidate_workflow has no results, so the pair cannot be compared");
      expect(result.tasks.map((task) => task.task)).toEqual(["a"]);
    });
    it("refuses no paired tasks", () => {
      expect(decide({}).reasons).toEqual(["no task has results for both arms, so there is nothing to compare"]);
    });
    it("throws on an unknown metric", () => {
      expect(() => decide({ a: cheaper(0.5) }, { metric: "bogus" as "cost_usd" })).toThrow(expect.objectContaining({ code: "PROMOTION_UNKNOWN_METRIC" }));
    });
  });

  it("records the per-task row of §4.6", () => {
    const result = decide({ a: [{ resolved: 2 }, { resolved: 3, cost_usd: 0.9 }] });
    expect(result.tasks[0]).toEqual({
      task: "a",
      class: "trivial",
      incumbent_resolved: "2/3",
      candidate_resolved: "3/3",
      incumbent: makeAggregate({ resolved: 2 }),
      candidate: makeAggregate({ resolved: 3, cost_usd: 0.9 }),
      incumbent_excluded_runs: 0,
      candidate_excluded_runs: 0,
      candidate_quality_floor_met: true,
      quality_floor_enforced: true,
      incumbent_metric: 1,
      candidate_metric: 0.9,
      improvement_pct: 10,
      gated: true,
      skill_attributable_failure: false,
    });
  });
});

describe("evaluateImplementationCandidate: audit findings", () => {
  const gateRow = (overrides: Partial<GateRow>): GateRow => ({
    task: "t1",
    arm: "workflow",
    class: "trivial",
    error_kind: null,
    resolved: false,
    cost_usd: 1,
    wire_cost_usd: 1,
    output_tokens: 1000,
    duration_s: 100,
    num_turns: 10,
    transcript_missing: false,
    ...overrides,
  });

  it.each(["output_tokens", "duration_s", "num_turns"] as const)(
    "never promotes on %s a valid candidate run never measured (null usage is not 0)",
    (metric) => {
      // The incumbent never resolves; the candidate resolves once and aborts its own session twice, so the CLI reports
      // no usage for those runs. Treating the unmeasured usage as 0 made the candidate look 100% cheaper.
      const aborted = gateRow({ arm: "candidate_workflow", error_kind: "session-aborted-by-agent", output_tokens: null, duration_s: null, num_turns: null });
      const rows = [gateRow({}), gateRow({}), gateRow({}), gateRow({ arm: "candidate_workflow", resolved: true }), aborted, aborted];
      const decision = evaluateImplementationCandidate({
        results: aggregateByTaskArm(rows),
        incumbentArm: "workflow",
        candidateArm: "candidate_workflow",
        policy: implementationPolicy({ metric }),
        model: "claude-x",
      });
      expect(decision.decision).toBe("insufficient_evidence");
      expect(decision.tasks[0]).toMatchObject({ candidate_metric: null, improvement_pct: null, gated: true });
      expect(decision.reasons).toContain(`t1: ${metric} was not measured on every run (metric unavailable)`);
    },
  );

  it.each<[string, number | null, number | null]>([
    ["a negative incumbent cost", -1, 1],
    ["a negative candidate cost", 1, -1],
    ["a NaN cost", Number.NaN, 1],
    ["an infinite candidate saving", 1, Number.NEGATIVE_INFINITY],
  ])("refuses to decide on %s (no sweep produces one)", (_name, incCost, candCost) => {
    expect(() => decide({ t1: [{ cost_usd: incCost }, { cost_usd: candCost }] })).toThrow(/cost_usd/);
  });
});
