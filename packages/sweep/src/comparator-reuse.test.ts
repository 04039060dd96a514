import { describe, expect, it } from "vitest";
import { buildResultRow, type ResultRow } from "@wfbench/result-row";
import { REUSE_MAX_AGE_MS, cellKey, checkReusableRow, keepHealthCanaries, selectReusableRows, skillKey, type ReuseExpectation } from "./comparator-reuse.js";

const HEX = (c: string): string => c.repeat(64);
const NOW = new Date("2026-06-01T12:00:00.000Z");

/** A resolved baseline row that matches EXPECTED in every respect. */
function goodRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const row: ResultRow = buildResultRow({
    input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5, cost_usd: 0.01, duration_s: 1.5, num_turns: 2,
    ok: true, session_ids: ["s1"], error_kind: null, error_detail: null, skill_invoked: null, transcript_missing: false,
    transcript_artifacts: [{ path: "transcripts/t-baseline-run0-s1.jsonl", sha256: HEX("e"), bytes: 12, source: "parent-captured-stream-json" }],
    evidence_diagnostics: [], gitnexus_tool_uses: 0, tool_use_counts: {}, wire_requests: 2, wire_failed_requests: 0, wire_input_tokens: 10, wire_output_tokens: 5,
    wire_cache_read_input_tokens: 0, wire_cache_creation_input_tokens: 0, wire_cost_usd: 0.01, wire_usage_complete: true, wire_price_tables: [], upstream: "scripted",
    arm: "baseline", plan_produced: true, authored_tests_passed: true, authored_test_output: "", verify_output: "", oracle_passed: true, oracle_output: "hidden oracle passed", resolved: true,
    oracle_digest: HEX("1"), oracle_command_digest: HEX("2"), oracle_manifest_digest: HEX("3"), diff_files: 1, diff_insertions: 3, diff_deletions: 0, patch_artifact: null,
    model: "claude-sonnet-4-5", benchmark_model: "claude-sonnet-4-5", proposer_model: null, effort: "xhigh", task_ref: "HEAD", task_base_sha: "a".repeat(40),
    sanitized_task_sha: "b".repeat(40), variant_head_sha: "b".repeat(40), task_prompt_digest: HEX("4"), skill_digest: HEX("5"), candidate_overlay_digest: null,
    runtime_digest: HEX("6"), recorded_at: "2026-05-30T12:00:00.000Z", task: "t", class: "trivial", run: 0, sandbox_backend: "bwrap",
    task_asset_snapshot_digest: HEX("7"), task_asset_manifest_digest: HEX("8"), sandbox_dependency_content_digest: HEX("9"), sandbox_dependency_manifest_digest: HEX("a"),
    sanitized_graph_snapshot_digest: null, sanitized_graph_manifest_digest: null,
  });
  return { ...row, ...overrides };
}

const EXPECTED: ReuseExpectation = {
  model: "claude-sonnet-4-5",
  effort: "xhigh",
  sandboxBackend: "bwrap",
  runtimeDigest: HEX("6"),
  now: NOW,
  maxAgeMs: REUSE_MAX_AGE_MS,
  tasks: new Map([["t", { task_base_sha: "a".repeat(40), task_prompt_digest: HEX("4"), oracle_digest: HEX("1"), oracle_command_digest: HEX("2"), oracle_manifest_digest: HEX("3"), task_asset_manifest_digest: HEX("8"), sandbox_dependency_manifest_digest: HEX("a"), declares_assets: true }]]),
  skillDigests: new Map([[skillKey("t", "baseline"), HEX("5")], [skillKey("t", "review"), HEX("5")]]),
  cePluginVersion: null,
  cePluginManifestDigest: null,
};

const reviewFields = { review_evidence_valid: true, review_artifact: "t-review-run0.review.json", review_score: { weighted_f1: 1 }, review_weighted_f1: 1 };

describe("checkReusableRow (reference §5.6, one flipped fact per case)", () => {
  it("accepts a row measured under exactly this sweep's facts", () => {
    expect(checkReusableRow(goodRow(), EXPECTED)).toBeNull();
  });

  const cases: [string, Record<string, unknown>, ReuseExpectation | null, number, string][] = [
    ["a candidate arm", { arm: "candidate_workflow", candidate_overlay_digest: HEX("d") }, null, 1, "arm"],
    ["an error kind", { error_kind: "verify-failed", resolved: false }, null, 2, "error_kind"],
    ["a not-ok row", { ok: false, resolved: false }, null, 2, "ok"],
    ["a missing transcript", { transcript_missing: true }, null, 2, "transcript_missing"],
    ["an overlay digest on a comparator", { candidate_overlay_digest: HEX("d") }, null, 2, "candidate_overlay_digest"],
    ["an age over 90 days", { recorded_at: "2026-02-01T00:00:00.000Z" }, null, 3, "recorded_at"],
    ["a future timestamp", { recorded_at: "2026-06-02T00:00:00.000Z" }, null, 3, "recorded_at"],
    ["a chained row aged from its first measurement", { reused: true, reused_from_recorded_at: "2026-01-01T00:00:00.000Z" }, null, 3, "reused_from_recorded_at"],
    ["another model", { model: "claude-opus-4-1", benchmark_model: "claude-opus-4-1" }, null, 4, "model"],
    ["another effort", { effort: "low" }, null, 4, "effort"],
    ["another sandbox backend", { sandbox_backend: "host-unsafe" }, null, 4, "sandbox_backend"],
    ["a missing row runtime digest", { runtime_digest: null }, null, 5, "runtime_digest"],
    ["a missing expected runtime digest", {}, { ...EXPECTED, runtimeDigest: null }, 5, "runtime_digest"],
    ["a different runtime digest", { runtime_digest: HEX("f") }, null, 5, "runtime_digest"],
    ["a task not selected", { task: "other" }, null, 6, "task"],
    ["a drifted base sha", { task_base_sha: "c".repeat(40) }, null, 6, "task_base_sha"],
    ["a drifted prompt", { task_prompt_digest: HEX("f") }, null, 6, "task_prompt_digest"],
    ["a drifted oracle", { oracle_digest: HEX("f") }, null, 6, "oracle_digest"],
    ["a drifted oracle command", { oracle_command_digest: HEX("f") }, null, 6, "oracle_command_digest"],
    ["a drifted oracle manifest", { oracle_manifest_digest: HEX("f") }, null, 6, "oracle_manifest_digest"],
    ["a missing asset manifest digest", { task_asset_manifest_digest: null }, null, 7, "task_asset_manifest_digest"],
    ["a drifted dependency manifest", { sandbox_dependency_manifest_digest: HEX("f") }, null, 7, "sandbox_dependency_manifest_digest"],
    ["a missing expected asset digest", {}, { ...EXPECTED, tasks: new Map([["t", { ...(EXPECTED.tasks.get("t") as NonNullable<ReturnType<typeof EXPECTED.tasks.get>>), task_asset_manifest_digest: null }]]) }, 7, "task_asset_manifest_digest"],
    ["asset digests for a task that now declares none", {}, { ...EXPECTED, tasks: new Map([["t", { ...(EXPECTED.tasks.get("t") as NonNullable<ReturnType<typeof EXPECTED.tasks.get>>), declares_assets: false }]]) }, 7, "task_asset_manifest_digest"],
    ["a drifted skill digest", { skill_digest: HEX("f") }, null, 8, "skill_digest"],
    ["no expected skill digest", {}, { ...EXPECTED, skillDigests: new Map() }, 8, "skill_digest"],
    ["a skill digest on a row of an arm that now evaluates none", {}, { ...EXPECTED, skillDigests: new Map([[skillKey("t", "baseline"), null]]) }, 8, "skill_digest"],
    ["a CE arm without the plugin", { arm: "ce_workflow", ce_plugin_version: "1.0.0", ce_plugin_manifest_digest: HEX("c") }, null, 8, "ce_plugin_version"],
    ["an invalid review", { arm: "review", ...reviewFields, review_evidence_valid: false }, null, 9, "review_evidence_valid"],
    ["a review without artifact", { arm: "review", ...reviewFields, review_artifact: "" }, null, 9, "review_artifact"],
    ["a review without a weighted F1", { arm: "review", ...reviewFields, review_weighted_f1: null }, null, 9, "review_weighted_f1"],
    ["no transcript artifacts", { transcript_artifacts: [] }, null, 10, "transcript_artifacts"],
    ["a transcript outside transcripts/", { transcript_artifacts: [{ path: "../x.jsonl", sha256: HEX("e"), bytes: 1, source: "parent-captured-stream-json" }] }, null, 10, "transcript_artifacts[0].path"],
    ["a transcript with an extra key", { transcript_artifacts: [{ path: "transcripts/x.jsonl", sha256: HEX("e"), bytes: 1, source: "parent-captured-stream-json", extra: 1 }] }, null, 10, "transcript_artifacts[0]"],
    ["an oversized transcript", { transcript_artifacts: [{ path: "transcripts/x.jsonl", sha256: HEX("e"), bytes: 9 * 1024 * 1024, source: "parent-captured-stream-json" }] }, null, 10, "transcript_artifacts[0].bytes"],
    ["an upper-case transcript digest", { transcript_artifacts: [{ path: "transcripts/x.jsonl", sha256: HEX("E"), bytes: 1, source: "parent-captured-stream-json" }] }, null, 10, "transcript_artifacts[0].sha256"],
  ];
  for (const [what, overrides, expectation, rule, field] of cases) {
    it(`refuses ${what} (rule ${rule}, ${field})`, () => {
      expect(checkReusableRow(goodRow(overrides), expectation ?? EXPECTED)).toMatchObject({ rule, field });
    });
  }

  // The review row passes rules 1–10 and is refused only for its partial test score (rule 0, the row contract).
  it("passes every §5.6 rule for a valid review row and a CE row whose plugin matches", () => {
    expect(checkReusableRow(goodRow({ arm: "review", ...reviewFields }), EXPECTED)).toMatchObject({ rule: 0 });
    const ce = { ...EXPECTED, cePluginVersion: "1.0.0", cePluginManifestDigest: HEX("c") };
    expect(checkReusableRow(goodRow({ arm: "ce_workflow", ce_plugin_version: "1.0.0", ce_plugin_manifest_digest: HEX("c"), skill_digest: null }), ce)).toBeNull();
  });

  it("matches null asset digests only for a task that declares no sandbox assets", () => {
    const none = { ...EXPECTED, tasks: new Map([["t", { ...(EXPECTED.tasks.get("t") as NonNullable<ReturnType<typeof EXPECTED.tasks.get>>), task_asset_manifest_digest: null, sandbox_dependency_manifest_digest: null, declares_assets: false }]]) };
    expect(checkReusableRow(goodRow({ task_asset_manifest_digest: null, sandbox_dependency_manifest_digest: null }), none)).toBeNull();
    expect(checkReusableRow(goodRow({ task_asset_manifest_digest: null, sandbox_dependency_manifest_digest: null }), EXPECTED)).toMatchObject({ rule: 7 });
  });

  it("matches a null skill digest for an arm that evaluates no skills", () => {
    expect(checkReusableRow(goodRow({ skill_digest: null }), { ...EXPECTED, skillDigests: new Map([[skillKey("t", "baseline"), null]]) })).toBeNull();
  });

  it("reads a naive timestamp as UTC and accepts Z", () => {
    expect(checkReusableRow(goodRow({ recorded_at: "2026-05-30T12:00:00" }), EXPECTED)).toMatchObject({ rule: 0, field: "recorded_at" });
    expect(checkReusableRow({ ...goodRow(), recorded_at: "2026-06-01T12:00:01" }, EXPECTED)).toMatchObject({ rule: 3 });
  });
});

describe("selectReusableRows", () => {
  it("keeps identical duplicates and blocks a key whose qualifying rows disagree", () => {
    const selection = selectReusableRows([goodRow(), goodRow(), goodRow({ run: 1 }), goodRow({ run: 1, recorded_at: "2026-05-31T12:00:00.000Z" }), goodRow({ run: 2, ok: false, resolved: false })], EXPECTED);
    expect([...selection.rows.keys()]).toEqual([cellKey("t", "baseline", 0)]);
    expect(selection.blocked).toEqual([cellKey("t", "baseline", 1)]);
    expect(selection.refused).toEqual([{ line: 5, refusal: expect.objectContaining({ rule: 2, field: "ok" }) }]);
  });
});

describe("keepHealthCanaries", () => {
  const planned = [0, 1].flatMap((run) => ["workflow", "baseline"].map((arm) => ({ task: "t", arm, run })));
  it("drops the lexically first planned key of an arm whose every planned cell is reusable", () => {
    const all = new Set(planned.map((cell) => cellKey(cell.task, cell.arm, cell.run)));
    expect([...keepHealthCanaries(planned, all)].sort()).toEqual([cellKey("t", "baseline", 1), cellKey("t", "workflow", 1)].sort());
  });
  it("counts against planned keys, not every selected key: extra runs in the source do not silence the canary", () => {
    const selected = new Set([...planned.map((cell) => cellKey(cell.task, cell.arm, cell.run)), cellKey("t", "baseline", 5)]);
    const kept = keepHealthCanaries(planned, selected);
    expect(kept.has(cellKey("t", "baseline", 0))).toBe(false);
    expect(kept.has(cellKey("t", "baseline", 5))).toBe(false);
  });
  it("keeps every reusable key of an arm that already pays for a cell", () => {
    const some = new Set([cellKey("t", "baseline", 0)]);
    expect([...keepHealthCanaries(planned, some)]).toEqual([cellKey("t", "baseline", 0)]);
  });
});
