import { describe, expect, it } from "vitest";
import { aggregateByTaskArm, buildCandidatePolicy, buildPromotion, parseResultRows } from "@wfbench/promotion-gate";
import { renderReport, type ReportProvenance } from "./render-report.js";

const PROVENANCE: ReportProvenance = {
  benchmarkModel: "claude-sonnet-4-5",
  proposerModel: null,
  effort: "xhigh",
  selectedTasks: ["t1"],
  skippedExpensiveTasks: [],
  upstream: "scripted",
  claudeCodeVersion: "2.1.332",
  status: "complete",
};

function row(arm: string, run: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    task: "t1",
    class: "trivial",
    arm,
    run,
    resolved: true,
    error_kind: null,
    transcript_missing: false,
    input_tokens: 1000,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 500,
    output_tokens: 50,
    cost_usd: 0.01,
    duration_s: 10,
    num_turns: 4,
    diff_files: 1,
    diff_insertions: 5,
    diff_deletions: 2,
    wire_requests: 4,
    wire_input_tokens: 1000,
    wire_cache_creation_input_tokens: 100,
    wire_cache_read_input_tokens: 500,
    wire_output_tokens: 50,
    wire_cost_usd: 0.012,
    ...overrides,
  };
}

function render(rows: Record<string, unknown>[], provenance: Partial<ReportProvenance> = {}): string {
  const result = renderReport(rows, { ...PROVENANCE, ...provenance });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe("renderReport", () => {
  describe("the review quality table", () => {
    const review = (run: number, over: Record<string, unknown>): Record<string, unknown> =>
      row("review", run, {
        task: "r1",
        class: "review-defect",
        review_evidence_valid: true,
        review_true_positives: 1,
        review_false_positives: 0,
        review_false_negatives: 1,
        review_precision: 1,
        review_recall: 0.5,
        review_blocker_recall: 1,
        review_weighted_f1: 0.666667,
        review_grounded_evidence: 1,
        review_verdict_correct: true,
        review_clean_control: false,
        review_clean_pass: false,
        ...over,
      });

    it("lists review cells only, with median counts (%.1f), min blocker recall and %.3f metrics, before the footers", () => {
      const text = render([row("baseline", 0), review(0, { review_true_positives: 2, review_blocker_recall: 0.5 }), review(1, { review_true_positives: 1 }), review(2, { review_evidence_valid: false, error_kind: "review-evidence-invalid", review_true_positives: null })]);
      expect(text).toContain("## Review quality\n\n| case | arm | TP | FP | FN | precision | recall | blocker recall | weighted F1 | grounding |\n|---|---|---|---|---|---|---|---|---|---|\n| r1 | review | 1.5 | 0.0 | 1.0 | 1.000 | 0.500 | 0.500 | 0.667 | 1.000 |\n");
      expect(text).not.toMatch(/\| t1 \| baseline \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.n/a]+ \| [0-9.n/a]+ \| [0-9.n/a]+ \|$/mu);
      expect(text.indexOf("## Review quality")).toBeLessThan(text.indexOf("run(s) hit session/infra errors"));
    });

    it("prints n/a for a metric that is null and leaves the table out without review cells", () => {
      const text = render([review(0, { review_precision: null, review_weighted_f1: null })]);
      expect(text).toContain("| r1 | review | 1.0 | 0.0 | 1.0 | n/a | 0.500 | 1.000 | n/a | 1.000 |");
      expect(render([row("baseline", 0)])).not.toContain("## Review quality");
    });
  });

  describe("the main table", () => {
    it("renders medians per task × arm in first-seen order with the reference header", () => {
      const text = render([row("workflow_direct", 0, { input_tokens: 800, cost_usd: 0.02, wire_cost_usd: 0.03 }), row("workflow_direct", 1, { input_tokens: 1200, cost_usd: 0.04, wire_cost_usd: 0.05 }), row("baseline", 0)]);
      expect(text).toContain("| task | class | arm | resolved | input | cache_create | cache_read | output | cost $ | CLI $ | wall s | turns | churn | errors |");
      // cost $ is the cost of record (the wire's median), CLI $ the CLI's own median beside it.
      expect(text).toContain("| t1 | trivial | workflow_direct | 2/2 | 1000 | 100 | 500 | 50 | 0.0400 | 0.0300 | 10.0 | 4 | 1/+5/\u22122 |  |");
      expect(text).toContain("cost $ is the cost of record");
      expect(text.indexOf("| workflow_direct |")).toBeLessThan(text.indexOf("| baseline |"));
    });

    it("counts excluded runs, lists error kinds sorted, and prints n/a for an unmeasured cost", () => {
      const text = render([
        row("baseline", 0, { resolved: false, error_kind: "oracle-failed", cost_usd: null }),
        row("baseline", 1, { resolved: false, error_kind: "infra-error" }),
        row("baseline", 2, { resolved: false, error_kind: "verify-failed" }),
      ]);
      expect(text).toContain("| t1 | trivial | baseline | 0/2 (1 excluded) |");
      expect(text).toContain("| 0.0120 | n/a | 10.0 |");
      expect(text).toContain("| n/a | 10.0 | 4 | 1/+5/\u22122 | infra-error\u00d71, oracle-failed\u00d71, verify-failed\u00d71 |");
      expect(text).toContain("1 run(s) hit session/infra errors or had unverifiable evidence and were excluded");
    });

    it("adds a savings row per non-baseline arm: positive is cheaper, null is n/a, a zero base is 0.0", () => {
      const text = render([row("baseline", 0, { cache_creation_input_tokens: 0, cost_usd: null }), row("workflow", 0, { input_tokens: 750, output_tokens: 60 })]);
      expect(text).toContain("| t1 | trivial | **workflow savings %** | \u2014 | 25.0 | 0.0 | 0.0 | -20.0 | 0.0 | n/a | 0.0 | \u2014 | \u2014 | \u2014 |");
    });

    it("marks the savings row of an arm that did not resolve every run", () => {
      const text = render([row("baseline", 0), row("workflow", 0, { resolved: false, wire_cost_usd: 0.006 })]);
      expect(text).toContain("| **workflow savings %** (not resolved: 0/1) |");
      expect(render([row("baseline", 0), row("workflow", 0)])).toContain("| **workflow savings %** |");
    });

    it("adds paired comparisons with bootstrap intervals and a run-count hint", () => {
      const rows = [0, 1, 2].flatMap((run) => [row("baseline", run, { wire_cost_usd: 0.01 + run * 0.001, duration_s: 10.25 }), row("workflow", run, { wire_cost_usd: 0.006 + run * 0.002, resolved: run !== 1 })]);
      const text = render(rows);
      expect(text).toContain("## Paired comparisons");
      // Deltas −0.004, −0.003, −0.002: median −0.003, the interval within the observed range; wall 10 − 10.25 = −0.25, half-even to −0.2.
      expect(text).toMatch(/\| t1 \| workflow \(arm resolved 2\/3\) \| baseline \| 3 \| \u22120\.0030 \[\u22120\.00\d\d, \u22120\.00\d\d\] \| \u22120\.2 \[\u22120\.2, \u22120\.2\] \| 0\.0 \[0\.0, 0\.0\] \| \u22120\.33 \[\u22121\.00, 0\.00\] \| \d+ \|/);
      expect(text).toContain("| **all tasks** | workflow (arm resolved 2/3) | baseline | 3 |");
      expect(render(rows)).toBe(text);
      expect(render([row("workflow", 0)])).not.toContain("## Paired comparisons");
    });

    it("has no savings rows without a baseline", () => {
      expect(render([row("workflow", 0)])).not.toContain("savings %");
    });
  });

  describe("footers, wire usage and provenance", () => {
    it("reports missing transcripts and always points at the session ids", () => {
      const text = render([row("baseline", 0, { transcript_missing: true })]);
      expect(text).toContain("1 run(s) had no locatable session transcript.");
      expect(text).toContain("Session ids of every run are in results.jsonl");
    });

    it("says how many runs spent outside their CLI", () => {
      const text = render([row("baseline", 0, { resolved: false, error_kind: "evidence-unverified", wire_unaccounted_requests: 2 }), row("baseline", 1, { wire_unaccounted_requests: 0 })]);
      expect(text).toContain("1 run(s) show gateway requests that no readable CLI stream of theirs accounts for (`wire_unaccounted_requests` in results.jsonl): spend outside the CLI, or a session whose stream did not parse whole (its row says which); their evidence is unverified.");
      expect(render([row("baseline", 0, { wire_unaccounted_requests: 0 })])).not.toContain("no readable CLI stream");
    });

    it("lists every contamination pair (the later arm names the earlier ones) as a possible shared-state leak", () => {
      const digest = "a".repeat(64);
      const flagged = render([row("workflow", 0, { diff_digest: digest, contamination_arms: [] }), row("baseline", 0, { diff_digest: digest, contamination_arms: ["workflow"] }), row("baseline", 1, { contamination_arms: [] })]);
      expect(flagged).toContain("**Contamination alarm:** 1 pair(s) of arms left byte-identical non-empty patches");
      expect(flagged).toContain("possible shared-state leak");
      expect(flagged).toContain("t1/run0: workflow = baseline.");
      expect(render([row("workflow", 0, { contamination_arms: [] })])).not.toContain("Contamination alarm");
    });

    it("names the runs whose CLI cost disagrees with the cost of record by more than 5%", () => {
      const text = render([
        row("baseline", 0, { cost_disagreement_ratio: 0.125, cost_disagreement_flagged: true }),
        row("baseline", 1, { cost_disagreement_ratio: null, cost_disagreement_flagged: true }),
        row("baseline", 2, { cost_disagreement_ratio: 0.01, cost_disagreement_flagged: false }),
      ]);
      expect(text).toContain("2 run(s) where the CLI's own cost differs from the cost of record (the gateway's priced wire cost) by more than 5% (`cost_disagreement_flagged` in results.jsonl):");
      expect(text).toMatch(/\/baseline\/run0 \(12\.5%\), [^ ]+\/baseline\/run1 \(no finite ratio\)\. cost \$ stays the record\./);
      expect(render([row("baseline", 0, { cost_disagreement_ratio: 0, cost_disagreement_flagged: false })])).not.toContain("cost of record (the gateway");
    });

    it("prints the harness overhead from timings_ms: cell total minus session wall time, median over timed cells", () => {
      const timed = (total: number, sessions: number[], phases: Record<string, number>) => ({ timings_ms: { total, ...Object.fromEntries(sessions.map((ms, i) => [`session_${i + 1}`, ms])), ...phases } });
      const text = render([
        row("workflow", 0, timed(5000, [2000, 2500], { materialize: 100, setup: 200, verify: 150, oracle: 40, capture: 10, cleanup: 0 })),
        row("workflow", 1, timed(3000, [2700], { materialize: 120, setup: 80, verify: 50, oracle: 30, capture: 20, cleanup: 0 })),
        row("baseline", 0, timed(1234, [1000], { materialize: 140, setup: 60, verify: 10, oracle: 10, capture: 14, cleanup: 0 })),
        row("baseline", 1),
      ]);
      // Overheads 500, 300 and 234 ms: median 0.30 s, max 0.50 s; the untimed row does not count.
      expect(text).toContain("Harness overhead: median 0.30 s per cell (max 0.50 s over 3 cell(s))");
      // Between phases: 500 − 500, 300 − 300, 234 − 234: nothing untimed.
      expect(text).toContain("Per-phase medians: materialize 0.12 s, setup 0.08 s, verify 0.05 s, oracle 0.03 s, capture 0.01 s, cleanup 0.00 s, between phases 0.00 s");
      // No row recorded task_commands (rows of an older harness): no split is claimed.
      expect(text).not.toContain("the task's own commands");
      expect(render([row("baseline", 0)])).not.toContain("## Harness overhead");
    });

    it("splits the overhead into the task's own commands and the harness's own work when rows record task_commands", () => {
      const timed = (total: number, session: number, phases: Record<string, number>) => ({ timings_ms: { total, session_1: session, ...phases } });
      const text = render([
        // Outside the session 900 ms: 600 of the task's commands, 300 of the harness, 100 of it between phases.
        row("baseline", 0, timed(2900, 2000, { materialize: 20, setup: 180, verify: 350, oracle: 250, capture: 0, cleanup: 0, task_commands: 600 })),
        row("baseline", 1, timed(2500, 2000, { materialize: 20, setup: 100, verify: 200, oracle: 100, capture: 40, cleanup: 40, task_commands: 280 })),
        row("baseline", 2, timed(2400, 2000, { materialize: 20, setup: 100, verify: 150, oracle: 100, capture: 20, cleanup: 10, task_commands: 250 })),
      ]);
      // Outside 900, 500, 400; task commands 600, 280, 250; own 300, 220, 150; between 100, 0, 0.
      expect(text).toContain("Harness overhead: median 0.50 s per cell (max 0.90 s over 3 cell(s))");
      expect(text).toContain("between phases 0.00 s");
      expect(text).toContain("take a median of 0.28 s; the harness's own work (copies, git, digests, staging, cleanup) a median of 0.22 s per cell (max 0.30 s over 3 cell(s)).");
    });

    it("prints the gateway's wire medians, n/a when a row lacks them", () => {
      const text = render([row("baseline", 0), row("workflow", 0, { wire_cost_usd: null })]);
      expect(text).toContain("| t1 | baseline | 4 | 1000 | 100 | 500 | 50 | 0.0120 |");
      expect(text).toContain("| t1 | workflow | 4 | 1000 | 100 | 500 | 50 | n/a |");
    });

    it("labels the scripted demo model and lists the provenance", () => {
      const text = render([row("baseline", 0)], { skippedExpensiveTasks: ["big"] });
      expect(text).toContain("**Scripted demo model.**");
      expect(text).toContain("- Benchmark model: `claude-sonnet-4-5` (served by the scripted demo model)");
      expect(text).toContain("- Reasoning effort: `xhigh`");
      expect(text).toContain("- Selected tasks (1): t1");
      expect(text).toContain("- Skipped expensive tasks (1): big");
      expect(render([row("baseline", 0)], { upstream: "anthropic" })).not.toContain("Scripted demo model");
    });

    it("opens with the no-security-boundary banner when any row ran host-unsafe, and only then", () => {
      const text = render([row("review", 0, { sandbox_backend: "host-unsafe" }), row("review", 1, { sandbox_backend: "bwrap" })]);
      expect(text).toContain("> **HOST-UNSAFE: no security boundary.**");
      expect(text.indexOf("HOST-UNSAFE")).toBeLessThan(text.indexOf("| task | class | arm |"));
      expect(render([row("review", 0, { sandbox_backend: "bwrap" })])).not.toContain("HOST-UNSAFE");
    });

    it("names the CE plugin version and digest the CE rows recorded", () => {
      const digest = "a".repeat(64);
      const text = render([row("ce_review", 0, { ce_plugin_version: "3.23.1", ce_plugin_manifest_digest: digest }), row("review", 0)]);
      expect(text).toContain(`- Compound Engineering plugin: \`3.23.1\` (\`${digest}\`)`);
      expect(render([row("review", 0)])).not.toContain("Compound Engineering plugin");
    });

    it.each([
      ["aborted", "Sweep aborted: partial evidence; promotion is disabled."],
      ["cancelled", "Sweep cancelled: partial evidence; promotion is disabled."],
    ] as const)("says when the sweep was %s", (status, line) => {
      expect(render([row("baseline", 0)], { status })).toContain(line);
    });
  });

  it("ends with the promotion section when given a promotion (what the runner used to splice in)", () => {
    const rows = [0, 1, 2].flatMap((run) => [row("workflow", run), row("candidate_workflow", run, { cost_usd: 0.005, wire_cost_usd: 0.006 })]);
    const parsed = parseResultRows(rows);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const promotion = buildPromotion({
      results: aggregateByTaskArm(parsed.value),
      policy: { candidate_workflow: buildCandidatePolicy("candidate_workflow") },
      benchmarkModel: "claude-sonnet-4-5",
      proposerModel: null,
      effort: "xhigh",
      candidateOverlay: "/overlays/v2",
      candidateOverlayDigest: "e".repeat(64),
      targetBaseDigests: {},
      selectedTasks: [],
      cePlugin: null,
      complete: true,
      now: new Date("2026-01-01T00:00:00Z"),
    });
    const plain = render(rows);
    const result = renderReport(rows, PROVENANCE, { promotion });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value).toBe(
      `${plain}\n## Promotion\n\nCandidate overlay \`/overlays/v2\` (\`${"e".repeat(64)}\`), run status \`complete\`; decisions written to promotion.json (schema 6).\n\n` +
        "- `candidate_workflow` vs `workflow`: **promote**, median cost_usd improvement 50% \u2014 median cost_usd improvement 50.0% meets the 5.0% threshold\n",
    );
    expect(render(rows)).not.toContain("## Promotion");
  });

  describe("rows a user edited by hand, or a merge or resume produced", () => {
    const mainLine = (text: string, task: string, arm: string): string => text.split("\n").find((line) => line.startsWith(`| ${task} | `) && line.includes(` | ${arm} | `)) ?? "";

    // Expected figures: python3 -c "print('%.4f' % 0.03125, '%.1f' % 0.25, '%.0f' % 2.5)" -> 0.0312 0.2 2
    it.each([
      ["a cost on an exact tie (1/32)", [{ cost_usd: 0.03125, wire_cost_usd: 0.03125 }], 8, "0.0312"],
      ["a CLI cost on an exact tie (3/32)", [{ cost_usd: 0.09375 }], 9, "0.0938"],
      ["a wall time on an exact tie", [{ duration_s: 0.25 }], 10, "0.2"],
      ["a median turn count of an even run count on a tie", [{ num_turns: 2 }, { num_turns: 3 }], 11, "2"],
      ["a huge cost", [{ wire_cost_usd: 1e22 }], 8, "10000000000000000000000.0000"],
    ])("prints %s as Python's %-format does", (_what, overs, column, expected) => {
      const cells = mainLine(render(overs.map((over, run) => row("baseline", run, over))), "t1", "baseline").split(" | ");
      expect(cells[column]).toBe(expected);
    });

    it("keeps tasks in first-seen order whatever their ids look like (digits, __proto__)", () => {
      const text = render(["zeta", "10", "2", "__proto__"].map((task) => row("baseline", 0, { task })));
      const tasks = text.split("\n").filter((line) => line.endsWith(" |  |")).map((line) => line.split(" | ")[0]);
      expect(tasks).toEqual(["| zeta", "| 10", "| 2", "| __proto__"]);
    });

    it.each([
      ["a pipe in the task id", { task: "a|b" }, "a\\|b"],
      ["a newline in the task id", { task: "a\nb" }, "a \u23ce b"],
      ["markup in the class", { class: "<img src=x onerror=alert(1)>" }, "\\<img src=x onerror=alert(1)\\>"],
    ])("keeps every table row on one line with 14 cells for %s", (_what, over, shownText) => {
      const text = render([row("baseline", 0, over), row("workflow", 0, over)]);
      const table = text.split("\n").filter((line) => line.startsWith("| ") && line.includes("baseline") && !line.includes("**"));
      expect(table.length).toBeGreaterThan(0);
      for (const line of text.split("\n").filter((l) => l.includes(" | baseline | 1/1 | "))) expect(line.split(/(?<!\\)\|/).length - 2).toBe(14);
      expect(text).toContain(`| ${shownText} |`);
    });

    it("puts provenance strings in code spans that hold them on one line", () => {
      const text = render([row("baseline", 0)], { benchmarkModel: "m`x\ny", selectedTasks: ["a|b"], upstream: "anthropic" });
      expect(text).toContain("- Benchmark model: ``m`x \u23ce y``\n");
      expect(text).toContain("- Selected tasks (1): a\\|b\n");
    });

    it("prints n/a, not a 0-filled median, for a metric a valid run left unmeasured, and n/a savings against it", () => {
      const text = render([row("baseline", 0), row("baseline", 1, { output_tokens: null }), row("baseline", 2, { output_tokens: 70 }), row("workflow", 0)]);
      expect(mainLine(text, "t1", "baseline").split(" | ")[7]).toBe("n/a");
      expect(text.split("\n").find((line) => line.includes("**workflow savings %**"))?.split(" | ")[7]).toBe("n/a");
    });

    it("refuses a duplicated cell (task, arm, run), naming the copy and the original", () => {
      const result = renderReport([row("baseline", 0), row("workflow", 0), row("baseline", 0, { resolved: false })], PROVENANCE);
      expect(!result.ok && result.error).toMatchObject({ index: 2, field: "run" });
      expect(!result.ok && result.error.message).toContain("of row 0");
    });

    it("takes the wire medians over the main table's valid rows: an invalid review artifact is out of both", () => {
      const text = render([row("review", 0, { wire_cost_usd: 0.1 }), row("review", 1, { resolved: false, error_kind: "verify-failed", review_evidence_valid: false, wire_cost_usd: 0.5 })]);
      expect(mainLine(text, "t1", "review").split(" | ")[8]).toBe("0.1000");
      expect(text).toContain("| t1 | review | 4 | 1000 | 100 | 500 | 50 | 0.1000 |");
    });

    it("times this sweep's harness only: a reused row's timings are left out of the overhead", () => {
      const text = render([row("baseline", 0, { timings_ms: { total: 1500, session_1: 1000 } }), row("workflow", 0, { reused: true, timings_ms: { total: 9000, session_1: 1000 } })]);
      expect(text).toContain("Harness overhead: median 0.50 s per cell (max 0.50 s over 1 cell(s))");
    });
  });

  it("refuses a row the aggregation schema refuses, naming its index and field", () => {
    const result = renderReport([row("baseline", 0), row("baseline", 1, { resolved: "yes" })], PROVENANCE);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ index: 1, field: "resolved" });
  });
});
