import { describe, expect, it } from "vitest";
import { buildResultRow } from "@wfbench/result-row";
import { emptyRow, type EmptyRowInput } from "./empty-row.js";

const HEX = "c".repeat(64);
const INPUT: EmptyRowInput = {
  task: { id: "demo-clamp", ref: "HEAD", class: "trivial", prompt: "Add clamp." },
  arm: "candidate_workflow_direct",
  run: 2,
  source: { sha: "a".repeat(40) },
  template: { sanitizedSha: "b".repeat(40) },
  oracle: { binding: { oracle_digest: HEX, oracle_command_digest: HEX, oracle_manifest_digest: HEX } },
  model: "claude-sonnet-4-5",
  effort: "high",
  proposerModel: null,
  upstream: "scripted",
  overlay: { files: [], digest: "d".repeat(64) },
};

describe("emptyRow", () => {
  it("is a row the contract accepts: identity filled in, nothing measured, nothing resolved", () => {
    const row = buildResultRow({ ...emptyRow(INPUT), recorded_at: "2026-01-01T00:00:00.000Z" });
    expect(row).toMatchObject({ task: "demo-clamp", arm: "candidate_workflow_direct", run: 2, class: "trivial", ok: false, resolved: false, error_kind: null, upstream: "scripted", sandbox_backend: "bwrap" });
    expect(row).toMatchObject({ task_base_sha: "a".repeat(40), sanitized_task_sha: "b".repeat(40), oracle_digest: HEX, candidate_overlay_digest: "d".repeat(64), benchmark_model: "claude-sonnet-4-5" });
    for (const field of ["input_tokens", "output_tokens", "cost_usd", "duration_s", "num_turns", "wire_requests", "wire_cost_usd", "diff_files", "variant_head_sha", "skill_digest", "tool_use_counts", "skill_invoked"] as const) expect(row[field], field).toBeNull();
  });

  it("records an overlay digest only on candidate arms", () => {
    expect(emptyRow({ ...INPUT, arm: "workflow_direct" }).candidate_overlay_digest).toBeNull();
  });
});
