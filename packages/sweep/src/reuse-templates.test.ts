import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildResultRow, type Arm } from "@wfbench/result-row";
import { REUSE_MAX_AGE_MS, type TaskReuseBinding } from "./comparator-reuse.js";
import type { ReuseSource } from "./materialize-reused-row.js";
import { TEMPLATE_BINDINGS_FILE, planTemplateSkips, readTemplateBindings, writeTemplateBindings, type TemplateBinding } from "./reuse-templates.js";

const HEX = (c: string): string => c.repeat(64);
const NOW = new Date("2026-06-01T12:00:00.000Z");
const BINDING: TaskReuseBinding = { task_base_sha: "a".repeat(40), task_prompt_digest: HEX("4"), oracle_digest: HEX("1"), oracle_command_digest: HEX("2"), oracle_manifest_digest: HEX("3"), task_asset_manifest_digest: null, sandbox_dependency_manifest_digest: null, declares_assets: false };
const RECORDED: TemplateBinding = { template_key: HEX("f"), sanitized_sha: "b".repeat(40), skill_digests: { baseline: null } };

/** A resolved baseline row of `task`/`run` measured under BINDING and RECORDED. */
function row(task: string, run: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...buildResultRow({
      input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5, cost_usd: 0.01, duration_s: 1.5, num_turns: 2,
      ok: true, session_ids: ["s1"], error_kind: null, error_detail: null, skill_invoked: null, transcript_missing: false,
      transcript_artifacts: [{ path: `transcripts/${task}-baseline-run${run}-s1.jsonl`, sha256: HEX("e"), bytes: 12, source: "parent-captured-stream-json" }],
      evidence_diagnostics: [], gitnexus_tool_uses: 0, tool_use_counts: {}, wire_requests: 2, wire_failed_requests: 0, wire_input_tokens: 10, wire_output_tokens: 5,
      wire_cache_read_input_tokens: 0, wire_cache_creation_input_tokens: 0, wire_cost_usd: 0.01, wire_usage_complete: true, wire_price_tables: [], upstream: "scripted",
      arm: "baseline", plan_produced: true, authored_tests_passed: true, authored_test_output: "", verify_output: "", oracle_passed: true, oracle_output: "hidden oracle passed", resolved: true,
      oracle_digest: HEX("1"), oracle_command_digest: HEX("2"), oracle_manifest_digest: HEX("3"), diff_files: 1, diff_insertions: 3, diff_deletions: 0, patch_artifact: null,
      model: "m", benchmark_model: "m", proposer_model: null, effort: "xhigh", task_ref: "HEAD", task_base_sha: "a".repeat(40),
      sanitized_task_sha: "b".repeat(40), variant_head_sha: "b".repeat(40), task_prompt_digest: HEX("4"), skill_digest: null, candidate_overlay_digest: null,
      runtime_digest: HEX("6"), recorded_at: "2026-05-30T12:00:00.000Z", task, class: "trivial", run, sandbox_backend: "bwrap",
      task_asset_snapshot_digest: null, task_asset_manifest_digest: null, sandbox_dependency_content_digest: null, sandbox_dependency_manifest_digest: null,
      sanitized_graph_snapshot_digest: null, sanitized_graph_manifest_digest: null,
    }),
    ...overrides,
  };
}

const EXPECTED = { model: "m", effort: "xhigh", sandboxBackend: "bwrap", runtimeDigest: HEX("6"), now: NOW, maxAgeMs: REUSE_MAX_AGE_MS, cePluginVersion: null, cePluginManifestDigest: null };
const cells = (arm: Arm = "baseline"): { task: string; arm: Arm; run: number }[] => [{ task: "a", arm, run: 0 }, { task: "b", arm, run: 0 }, { task: "b", arm, run: 1 }];
const source = (lines: unknown[]): ReuseSource => ({ dir: "/nowhere", dev: 0, ino: 0, lines });
const candidates = (keyB: string | null = HEX("f")) => [{ task: "a", templateKey: HEX("f"), binding: BINDING }, { task: "b", templateKey: keyB, binding: BINDING }];
const plan = (over: { lines?: unknown[]; recorded?: Map<string, TemplateBinding>; keyB?: string | null; arm?: Arm } = {}) =>
  [...planTemplateSkips({ candidates: candidates(over.keyB), cells: cells(over.arm), recorded: over.recorded ?? new Map([["a", RECORDED], ["b", RECORDED]]), source: source(over.lines ?? [row("a", 0), row("b", 0), row("b", 1)]), expected: EXPECTED }).keys()];

describe("planTemplateSkips (reference §5.6: no template for a fully reused task)", () => {
  it("skips the task whose every cell is reusable and none is a health canary; the canary's task is prepared", () => {
    expect(plan()).toEqual(["b"]);
  });

  it("prepares every template the record cannot vouch for (fail closed)", () => {
    expect(plan({ keyB: HEX("c") }), "another template key").toEqual([]);
    expect(plan({ keyB: null }), "a refused declaration").toEqual([]);
    expect(plan({ recorded: new Map([["a", RECORDED]]) }), "no record").toEqual([]);
    expect(plan({ recorded: new Map([["b", { ...RECORDED, skill_digests: {} }]]) }), "no fingerprint for the arm").toEqual([]);
    expect(plan({ lines: [row("a", 0), row("b", 0)] }), "one cell without a row").toEqual([]);
    expect(plan({ lines: [row("b", 0), row("b", 1, { sanitized_task_sha: "c".repeat(40) })] }), "a row of another sanitized tree").toEqual([]);
    expect(plan({ lines: [row("b", 0), row("b", 1, { skill_digest: HEX("5") })] }), "a row of other skills").toEqual([]);
    expect(plan({ lines: [row("b", 0), row("b", 1, { effort: "low" })] }), "a row of another effort").toEqual([]);
    expect(plan({ arm: "candidate_workflow" }), "a candidate arm").toEqual([]);
  });
});

describe("template bindings file", () => {
  const base = mkdtempSync(join(tmpdir(), "wfbench-template-bindings-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const at = (name: string): ReuseSource => {
    mkdirSync(join(base, name));
    return { dir: join(base, name), dev: 0, ino: 0, lines: [] };
  };

  it("reads back what a sweep wrote", async () => {
    const dir = at("round-trip");
    await writeTemplateBindings(dir.dir, new Map([["b", RECORDED], ["a", { ...RECORDED, skill_digests: { workflow: HEX("5") } }]]));
    const read = await readTemplateBindings(dir);
    expect(read.note).toBeNull();
    expect([...read.bindings]).toEqual([["a", { ...RECORDED, skill_digests: { workflow: HEX("5") } }], ["b", RECORDED]]);
  });

  it("yields nothing for a missing, malformed or linked file (every template is then prepared)", async () => {
    expect(await readTemplateBindings(at("missing"))).toEqual({ bindings: new Map(), note: null });
    const bad = at("bad");
    writeFileSync(join(bad.dir, TEMPLATE_BINDINGS_FILE), JSON.stringify({ schema_version: 1, tasks: { b: { ...RECORDED, template_key: "short" } } }));
    const malformed = await readTemplateBindings(bad);
    expect(malformed.bindings.size).toBe(0);
    expect(malformed.note).toMatch(/malformed/u);
    const linked = at("linked");
    writeFileSync(join(base, "elsewhere.json"), JSON.stringify({ schema_version: 1, tasks: { b: RECORDED } }));
    symlinkSync(join(base, "elsewhere.json"), join(linked.dir, TEMPLATE_BINDINGS_FILE));
    const followed = await readTemplateBindings(linked);
    expect(followed.bindings.size).toBe(0);
    expect(followed.note).toMatch(/unreadable/u);
  });
});
