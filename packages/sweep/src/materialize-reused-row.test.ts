import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sha256Hex } from "@wfbench/digest";
import { ResultRowSchema } from "@wfbench/result-row";
import { ReuseDriftError, materializeReusedRow, openReuseSource } from "./materialize-reused-row.js";

const base = mkdtempSync(join(tmpdir(), "wfbench-materialize-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const TRANSCRIPT = Buffer.from('{"type":"result"}\n');
const NOW = new Date("2026-06-01T12:00:00.000Z");

function earlierSweep(name: string, options: { transcript?: Buffer; linkResults?: boolean } = {}): { dir: string; row: ReturnType<typeof ResultRowSchema.parse> } {
  const dir = join(base, name);
  mkdirSync(join(dir, "transcripts"), { recursive: true });
  writeFileSync(join(dir, "transcripts", "t-baseline-run0-s1.jsonl"), options.transcript ?? TRANSCRIPT);
  writeFileSync(join(dir, "t-baseline-run0.patch"), "diff --git a/x b/x\n");
  const row = ResultRowSchema.parse({
    row_schema: 1, input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, cost_usd: 0, duration_s: 1, num_turns: 1, ok: true, session_ids: ["s1"],
    error_kind: null, error_detail: null, skill_invoked: null, transcript_missing: false,
    transcript_artifacts: [{ path: "transcripts/t-baseline-run0-s1.jsonl", sha256: sha256Hex(TRANSCRIPT), bytes: TRANSCRIPT.length, source: "parent-captured-stream-json" }],
    evidence_diagnostics: [], gitnexus_tool_uses: 0, tool_use_counts: {}, wire_requests: 1, wire_failed_requests: 0, wire_input_tokens: 1, wire_output_tokens: 1, wire_cache_read_input_tokens: 0,
    wire_cache_creation_input_tokens: 0, wire_cost_usd: 0, wire_usage_complete: true, wire_price_tables: [], upstream: "scripted", arm: "baseline", plan_produced: true, authored_tests_passed: true,
    authored_test_output: "", verify_output: "", oracle_passed: true, oracle_output: "hidden oracle passed", resolved: true, oracle_digest: null, oracle_command_digest: null, oracle_manifest_digest: null,
    diff_files: 1, diff_insertions: 1, diff_deletions: 0, patch_artifact: "t-baseline-run0.patch", model: "m", benchmark_model: "m", proposer_model: null, effort: "xhigh", task_ref: "HEAD",
    task_base_sha: "a".repeat(40), sanitized_task_sha: null, variant_head_sha: null, task_prompt_digest: "4".repeat(64), skill_digest: null, candidate_overlay_digest: null, runtime_digest: "6".repeat(64),
    recorded_at: "2026-05-30T12:00:00.000Z", task: "t", class: "c", run: 0, sandbox_backend: "bwrap", task_asset_snapshot_digest: null, task_asset_manifest_digest: null,
    sandbox_dependency_content_digest: null, sandbox_dependency_manifest_digest: null, sanitized_graph_snapshot_digest: null, sanitized_graph_manifest_digest: null,
  });
  if (options.linkResults === true) {
    writeFileSync(join(base, `${name}.real.jsonl`), `${JSON.stringify(row)}\n`);
    symlinkSync(join(base, `${name}.real.jsonl`), join(dir, "results.jsonl"));
  } else writeFileSync(join(dir, "results.jsonl"), `${JSON.stringify(row)}\n`);
  return { dir, row };
}

describe("openReuseSource", () => {
  it("refuses the --out directory itself, a missing directory and a linked results.jsonl", async () => {
    const { dir } = earlierSweep("same");
    expect(await openReuseSource(dir, dir)).toMatch(/is the --out directory/u);
    expect(await openReuseSource(join(base, "missing"), join(base, "out-x"))).toMatch(/is not a directory/u);
    const linked = earlierSweep("linked", { linkResults: true });
    expect(await openReuseSource(linked.dir, join(base, "out-y"))).toMatch(/must be a regular file, not a link/u);
  });
});

describe("materializeReusedRow", () => {
  it("copies transcript and patch byte for byte and re-stamps the row as reused from its first measurement", async () => {
    const { dir, row } = earlierSweep("good");
    const source = await openReuseSource(dir, join(base, "out-good"));
    if (typeof source === "string") throw new Error(source);
    const out = join(base, "out-good");
    mkdirSync(out);
    const reused = await materializeReusedRow(source, row, out, NOW);
    expect(reused).toMatchObject({ reused: true, reused_from_recorded_at: "2026-05-30T12:00:00.000Z", recorded_at: NOW.toISOString(), transcript_artifacts: row.transcript_artifacts });
    expect(readFileSync(join(out, "transcripts", "t-baseline-run0-s1.jsonl")).equals(TRANSCRIPT)).toBe(true);
    expect(readFileSync(join(out, "t-baseline-run0.patch"), "utf8")).toBe("diff --git a/x b/x\n");
    // A row reused again keeps its first measurement time.
    mkdirSync(join(base, "out-again"));
    const again = await materializeReusedRow(source, { ...row, reused: true, reused_from_recorded_at: "2026-05-01T00:00:00.000Z" }, join(base, "out-again"), NOW);
    expect(again.reused_from_recorded_at).toBe("2026-05-01T00:00:00.000Z");
  });

  it("refuses a transcript whose bytes drifted from the recorded digest and leaves nothing behind", async () => {
    const { dir, row } = earlierSweep("drift", { transcript: Buffer.from('{"type":"RESULT"}\n') });
    const source = await openReuseSource(dir, join(base, "out-drift"));
    if (typeof source === "string") throw new Error(source);
    const out = join(base, "out-drift");
    mkdirSync(out);
    await expect(materializeReusedRow(source, row, out, NOW)).rejects.toBeInstanceOf(ReuseDriftError);
    expect(readdirSync(join(out, "transcripts"))).toEqual([]);
  });

  it("refuses a transcript replaced by a symlink and a missing one", async () => {
    const { dir, row } = earlierSweep("link");
    const source = await openReuseSource(dir, join(base, "out-link"));
    if (typeof source === "string") throw new Error(source);
    rmSync(join(dir, "transcripts", "t-baseline-run0-s1.jsonl"));
    symlinkSync(join(base, "good", "transcripts", "t-baseline-run0-s1.jsonl"), join(dir, "transcripts", "t-baseline-run0-s1.jsonl"));
    mkdirSync(join(base, "out-link"));
    await expect(materializeReusedRow(source, row, join(base, "out-link"), NOW)).rejects.toBeInstanceOf(ReuseDriftError);
    rmSync(join(dir, "transcripts", "t-baseline-run0-s1.jsonl"));
    mkdirSync(join(base, "out-missing"));
    await expect(materializeReusedRow(source, row, join(base, "out-missing"), NOW)).rejects.toThrow(/t-baseline-run0-s1.jsonl/u);
  });

  it("refuses a source directory swapped after it was checked", async () => {
    const { dir, row } = earlierSweep("swap");
    const source = await openReuseSource(dir, join(base, "out-swap"));
    if (typeof source === "string") throw new Error(source);
    // Moved aside (not deleted), so the new directory cannot get the old inode number.
    renameSync(dir, join(base, "swap-old"));
    earlierSweep("swap");
    mkdirSync(join(base, "out-swap"));
    await expect(materializeReusedRow(source, row, join(base, "out-swap"), NOW)).rejects.toThrow(/was replaced/u);
  });
});
