import { describe, expect, it } from "vitest";
import { rowFields } from "../test/support/rows.js";
import { ROW_SCHEMA_VERSION, buildResultRow, isResultRowError, parseResultRow } from "./index.js";

function refusalOf(run: () => unknown): { code: string; field: string } | null {
  try {
    run();
    return null;
  } catch (error) {
    if (!isResultRowError(error)) throw error;
    return { code: error.code, field: error.field };
  }
}

describe("buildResultRow", () => {
  it("stamps the current row_schema and keeps every field", () => {
    const row = buildResultRow(rowFields());
    expect(row.row_schema).toBe(ROW_SCHEMA_VERSION);
    expect(row).toEqual({ ...rowFields(), row_schema: 1 });
  });

  it("keeps a review arm's score fields", () => {
    const score = { true_positives: 1, false_positives: 0, false_negatives: 0, precision: 1, recall: 1, f1: 1, weighted_precision: 1, weighted_recall: 1, weighted_f1: 1, blocker_recall: 1, severity_accuracy: 1, category_accuracy: 1, grounded_evidence: 1, verdict_correct: true, clean_control: false, clean_pass: false, score_finite: true };
    const row = buildResultRow(rowFields({ arm: "review", review_score: score, review_evidence_valid: true, review_artifact: "t-review-run0.review.json", review_weighted_f1: 1, review_verdict_correct: true }));
    expect(row.review_score).toEqual(score);
    expect(row.review_weighted_f1).toBe(1);
  });

  it("keeps the churn fingerprint and the contamination alarm (rows without them still parse)", () => {
    const row = buildResultRow(rowFields({ diff_digest: "b".repeat(64), contamination_arms: ["workflow", "workflow_direct"] }));
    expect([row.diff_digest, row.contamination_arms]).toEqual(["b".repeat(64), ["workflow", "workflow_direct"]]);
    expect(buildResultRow(rowFields({ diff_digest: null, contamination_arms: [] })).contamination_arms).toEqual([]);
    expect(buildResultRow(rowFields()).diff_digest).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a diff digest that is not sha256 hex", { diff_digest: "ABC" }, "diff_digest"],
    ["contamination arms that are not a list of names", { contamination_arms: "workflow" }, "contamination_arms"],
    ["an empty contamination arm name", { contamination_arms: [""] }, "contamination_arms.0"],
    // A typo in an error kind compiled before the contract; it is now refused before the row is written.
    ["an error kind outside §4.3", { error_kind: "verify-fail", resolved: false }, "error_kind"],
    ["an arm outside the vocabulary", { arm: "candidate_baseline" }, "arm"],
    ["an unknown field", { wire_request: 3 }, ""],
    ["a negative token count", { output_tokens: -1 }, "output_tokens"],
    ["a fractional token count", { input_tokens: 1.5 }, "input_tokens"],
    ["a negative cost", { cost_usd: -0.01 }, "cost_usd"],
    ["a negative cost disagreement", { cost_disagreement_ratio: -0.5 }, "cost_disagreement_ratio"],
    ["a cost disagreement flag that is not a boolean", { cost_disagreement_flagged: "yes" }, "cost_disagreement_flagged"],
    ["a transcript record from another source", { transcript_artifacts: [{ path: "x.jsonl", sha256: "a".repeat(64), bytes: 1, source: "agent-written" }] }, "transcript_artifacts.0.source"],
    ["a short digest", { skill_digest: "abc" }, "skill_digest"],
    ["a naive timestamp", { recorded_at: "2026-01-02T03:04:05" }, "recorded_at"],
    ["a resolved row with an error kind", { error_kind: "skill-not-invoked" }, "resolved"],
    ["a resolved row that is not ok", { ok: false }, "resolved"],
  ])("refuses %s, naming the field", (_name, override, field) => {
    expect(refusalOf(() => buildResultRow({ ...rowFields(), ...override } as never))).toEqual({ code: "RESULT_ROW_INVALID", field });
  });
});

describe("parseResultRow", () => {
  it("reads back exactly what buildResultRow wrote, through JSON", () => {
    const row = buildResultRow(rowFields({ error_kind: "verify-failed", resolved: false, authored_tests_passed: false }));
    expect(parseResultRow(JSON.parse(JSON.stringify(row)))).toEqual({ ok: true, value: row });
  });

  it("refuses a current row with a field missing or an unknown field, naming it", () => {
    const { wire_cost_usd: _dropped, ...missing } = buildResultRow(rowFields());
    expect(parseResultRow(missing)).toMatchObject({ ok: false, error: { field: "wire_cost_usd" } });
    expect(parseResultRow({ ...buildResultRow(rowFields()), extra: 1 })).toMatchObject({ ok: false, error: { field: "" } });
  });

  it.each([2, "1", null])("refuses row_schema %j", (version) => {
    expect(parseResultRow({ ...buildResultRow(rowFields()), row_schema: version })).toMatchObject({ ok: false, error: { field: "row_schema" } });
  });

  it("reads a row written before row_schema existed with the fields it has, dropping unknown ones", () => {
    // The original harness's rows: no wire_* or upstream, an offset timestamp, a session-error dict of seven keys.
    const old = {
      task: "t",
      arm: "workflow",
      class: "trivial",
      resolved: false,
      ok: false,
      error_kind: "session-error",
      error_detail: { subtype: "error_max_turns", returncode: 1, process_state: "exited", stderr_tail: null, stdout_tail: "", process_detail: null, event_stream_error: null },
      recorded_at: "2025-06-01T10:00:00.123456+00:00",
      cost_usd: null,
      graph_cache_hits: 4,
    };
    const parsed = parseResultRow(old);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { graph_cache_hits: _unknown, ...known } = old;
    expect(parsed.value).toEqual(known);
    expect(parsed.value.row_schema).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["without task", { task: undefined }, "task"],
    ["without resolved", { resolved: undefined }, "resolved"],
    ["with a string resolved", { resolved: "true" }, "resolved"],
    ["with an unknown error kind", { error_kind: "timeout" }, "error_kind"],
    ["with an infinite metric", { input_tokens: Number.POSITIVE_INFINITY }, "input_tokens"],
    ["with a negative review count", { review_false_positives: -1 }, "review_false_positives"],
  ])("refuses an unversioned row %s", (_name, override, field) => {
    expect(parseResultRow({ task: "t", arm: "workflow", class: "c", resolved: true, ...override })).toMatchObject({ ok: false, error: { field } });
  });

  it.each([null, [], "row", 3])("refuses %j as a row", (raw) => {
    expect(parseResultRow(raw)).toMatchObject({ ok: false, error: { field: "" } });
  });
});
