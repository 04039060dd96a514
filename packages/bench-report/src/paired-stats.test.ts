import { describe, expect, it } from "vitest";
import { parseResultRow, type ParsedRow } from "@wfbench/result-row";
import { bootstrapInterval, computeReportStats, formatReportStats, runsToDetect } from "./paired-stats.js";

function row(task: string, arm: string, run: number, cost: number, over: Record<string, unknown> = {}): ParsedRow {
  const parsed = parseResultRow({
    task, class: "trivial", arm, run, resolved: true, error_kind: null, transcript_missing: false,
    input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1,
    cost_usd: cost, wire_cost_usd: cost, duration_s: 10 + run, num_turns: 4, diff_files: 1, diff_insertions: 1, diff_deletions: 0, ...over,
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

describe("bootstrapInterval", () => {
  it("is reproducible and brackets the estimate", () => {
    const deltas = [-0.3, -0.1, -0.2, 0.05, -0.25, -0.15];
    const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const a = bootstrapInterval(deltas, median, "x");
    expect(bootstrapInterval(deltas, median, "x")).toEqual(a);
    expect(a.low).not.toBeNull();
    expect(a.low!).toBeLessThanOrEqual(a.estimate!);
    expect(a.high!).toBeGreaterThanOrEqual(a.estimate!);
    expect(a.low!).toBeGreaterThanOrEqual(-0.3);
    expect(a.high!).toBeLessThanOrEqual(0.05);
  });
  it("collapses to a point for identical deltas and is null without pairs", () => {
    expect(bootstrapInterval([2, 2, 2], (xs) => xs[0] ?? 0, "c")).toEqual({ estimate: 2, low: 2, high: 2 });
    expect(bootstrapInterval([], (xs) => xs[0] ?? 0, "c")).toEqual({ estimate: null, low: null, high: null });
  });
  it("is unknown, never Infinity, when the deltas overflow float64, so report-stats.json stays writable", () => {
    const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const interval = bootstrapInterval([1.7e308, 1.7e308], mean, "overflow");
    expect(interval).toEqual({ estimate: null, low: null, high: null });
    expect(runsToDetect([1.7e308, -1.7e308], [1e-300, 1e-300])).toBeNull();
  });
});

describe("runsToDetect", () => {
  it("follows n = ((z.975 + z.8)·sd / (0.05·mean))²", () => {
    // deltas 0.01 and -0.01: sd = √2·0.01; mean reference 1 → ((2.8016·0.014142)/0.05)² = 0.6279 → at least 2.
    expect(runsToDetect([0.01, -0.01], [1, 1])).toBe(2);
    // sd = √2·0.1, mean 1 → 62.79 → 63.
    expect(runsToDetect([0.1, -0.1], [1, 1])).toBe(63);
    expect(runsToDetect([0.1], [1])).toBeNull();
    expect(runsToDetect([0.1, 0.2], [0, 0])).toBeNull();
  });
});

describe("computeReportStats", () => {
  const rows = [
    row("t1", "baseline", 1, 1.0), row("t1", "baseline", 2, 1.2), row("t1", "baseline", 3, 0.8),
    row("t1", "workflow", 1, 0.5), row("t1", "workflow", 2, 0.7, { resolved: false }), row("t1", "workflow", 3, 0.4),
    row("t1", "candidate_workflow", 1, 0.45), row("t1", "candidate_workflow", 3, 0.5),
    row("t1", "candidate_workflow", 2, 9, { error_kind: "infra-error" }),
    row("t2", "baseline", 1, 2.0), row("t2", "workflow", 1, 1.0),
  ];
  const stats = computeReportStats(rows);
  const find = (task: string | null, arm: string, reference: string) => stats.comparisons.find((c) => c.task === task && c.arm === arm && c.reference === reference);

  it("pairs each arm with baseline by (task, run), per task and pooled", () => {
    const t1 = find("t1", "workflow", "baseline");
    expect(t1?.pairs).toBe(3);
    expect(t1?.cost_usd.estimate).toBeCloseTo(-0.5, 9);
    expect(t1?.duration_s.estimate).toBe(0);
    expect(t1?.resolve_rate_diff.estimate).toBeCloseTo(-1 / 3, 6);
    expect(t1?.arm_resolved).toBe(2);
    expect(t1?.runs_for_5pct_cost).toBeGreaterThan(2);
    const pooled = find(null, "workflow", "baseline");
    expect(pooled?.pairs).toBe(4);
    expect(pooled?.runs_for_5pct_cost).toBeNull();
  });

  it("compares a candidate with its incumbent over runs valid on both sides", () => {
    const c = find("t1", "candidate_workflow", "workflow");
    expect(c?.relation).toBe("incumbent");
    expect(c?.pairs).toBe(2);
    expect(c?.cost_usd.estimate).toBeCloseTo(0.025, 9);
    expect(find("t1", "candidate_workflow", "baseline")?.pairs).toBe(2);
    expect(find("t2", "candidate_workflow", "workflow")).toBeUndefined();
    expect(find("t1", "baseline", "baseline")).toBeUndefined();
  });

  it("pairs both review arms with the CE reviewer, and the CE reviewer with nothing of its own", () => {
    const reviewRows = [0, 1].flatMap((run) => [row("r1", "ce_review", run, 0.02), row("r1", "review", run, 0.01), row("r1", "candidate_review", run, 0.015)]);
    const comparisons = computeReportStats(reviewRows).comparisons;
    const pairs = comparisons.filter((c) => c.task === "r1").map((c) => `${c.arm}~${c.reference}:${c.relation}`);
    expect(pairs).toEqual(["review~ce_review:ce-comparator", "candidate_review~review:incumbent", "candidate_review~ce_review:ce-comparator"]);
    expect(comparisons.find((c) => c.task === "r1" && c.arm === "review")?.cost_usd.estimate).toBeCloseTo(-0.01, 9);
  });

  it.each([
    ["an unpriced cost of record", { wire_cost_usd: null }, "cost_usd"],
    ["an unmeasured wall time", { duration_s: null }, "duration_s"],
    ["an unmeasured turn count", { num_turns: null }, "num_turns"],
  ] as const)("leaves the statistic unknown when one pair has %s (the other pairs are not a sample of all)", (_what, over, field) => {
    const withGap = [row("t1", "baseline", 1, 1.0), row("t1", "baseline", 2, 1.2), row("t1", "baseline", 3, 0.8), row("t1", "workflow", 1, 0.5), row("t1", "workflow", 2, 0.7, over), row("t1", "workflow", 3, 0.4)];
    const comparisons = computeReportStats(withGap).comparisons.filter((c) => c.arm === "workflow" && c.reference === "baseline");
    expect(comparisons.map((c) => c.task)).toEqual(["t1", null]);
    for (const c of comparisons) {
      expect(c.pairs).toBe(3);
      expect(c[field]).toEqual({ estimate: null, low: null, high: null });
      expect(c.resolve_rate_diff.estimate).toBe(0);
    }
    expect(comparisons[0]?.runs_for_5pct_cost === null).toBe(field === "cost_usd");
  });

  it("gives the pooled interval of the same evidence whatever order the tasks' rows arrive in (resume, merge)", () => {
    const spread = ["a", "b", "c"].flatMap((task, t) => [0, 1, 2, 3, 4].flatMap((run) => [row(task, "baseline", run, 1 + ((run * 7 + t * 3) % 5) * 0.1), row(task, "workflow", run, 0.8 + ((run * 3 + t * 5) % 7) * 0.07)]));
    const inOrder = (tasks: readonly string[]): ParsedRow[] => tasks.flatMap((task) => spread.filter((r) => r.task === task));
    const pooled = (rs: readonly ParsedRow[]) => computeReportStats(rs).comparisons.find((c) => c.task === null && c.arm === "workflow");
    expect(pooled(inOrder(["b", "c", "a"]))).toEqual(pooled(spread));
    expect(pooled(inOrder(["c", "a", "b"]))).toEqual(pooled(spread));
  });

  it("serialises canonically and reproducibly", () => {
    const text = formatReportStats(stats);
    expect(text).toBe(formatReportStats(computeReportStats(rows)));
    const reversed = computeReportStats([...rows].reverse());
    expect(reversed.comparisons.find((c) => c.task === "t1" && c.arm === "workflow" && c.reference === "baseline")).toEqual(find("t1", "workflow", "baseline"));
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.indexOf('"bootstrap"')).toBeLessThan(text.indexOf('"comparisons"'));
  });
});
