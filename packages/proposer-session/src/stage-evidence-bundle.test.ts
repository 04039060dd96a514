import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isProposerSessionError } from "./errors.js";
import { BUNDLE_LIMITS, selectEvidenceRows, selectSkillLearnings, stageEvidenceBundle } from "./stage-evidence-bundle.js";

type Kind = string | null;
const row = (task: string, arm: "workflow" | "baseline", run: number, resolved: boolean, cost: number | null, errorKind: Kind = null) => ({ task, arm, run, resolved, cost_usd: cost, error_kind: errorKind as never });

describe("selectEvidenceRows", () => {
  it("drops rows that say nothing about the skill, puts unresolved rows first by task/arm/run, then resolved by cost", () => {
    const rows = [
      row("b", "workflow", 0, true, 0.2),
      row("b", "workflow", 1, false, 0.1),
      row("a", "workflow", 0, false, 0.1, "oracle-failed"),
      row("a", "baseline", 0, false, 0.3, "verify-failed"),
      row("a", "workflow", 1, true, 0.9),
      row("c", "workflow", 0, false, 0.1, "infra-error"),
      row("c", "workflow", 1, false, 0.1, "session-error"),
      row("c", "workflow", 2, false, 0.1, "evidence-unverified"),
      row("c", "workflow", 3, false, 0.1, "cleanup-failure"),
      row("d", "workflow", 0, true, null),
    ];
    expect(selectEvidenceRows(rows).map((r) => `${r.task}/${r.arm}/${r.run}`)).toEqual(["a/baseline/0", "a/workflow/0", "b/workflow/1", "a/workflow/1", "b/workflow/0", "d/workflow/0"]);
  });

  it("keeps at most 12 rows", () => {
    const rows = Array.from({ length: 20 }, (_, index) => row(`t${String(index).padStart(2, "0")}`, "workflow", 0, false, 0.1, "oracle-failed"));
    const selected = selectEvidenceRows(rows);
    expect(selected).toHaveLength(12);
    expect(selected.at(-1)?.task).toBe("t11");
  });
});

describe("selectSkillLearnings", () => {
  it("keeps the last 40 rows about the given skills and skips malformed lines", () => {
    const lines = ["not json", JSON.stringify([1]), JSON.stringify({ skill: "other" }), ...Array.from({ length: 45 }, (_, index) => JSON.stringify({ skill: "demo-work", n: index }))];
    const picked = selectSkillLearnings(lines.join("\n"), ["demo-work"]);
    expect(picked).toHaveLength(BUNDLE_LIMITS.maxLearnings);
    expect(picked[0]).toEqual({ skill: "demo-work", n: 5 });
  });

  it("keeps each row as written and skips non-objects, a non-string skill and a torn last line", () => {
    const text = [
      '{"skill":"demo-work","date":"2026-07-25","task":"#1","friction":"slow","suggestion":"cache"}',
      "{not json",
      '"demo-work"',
      '{"skill":42}',
      "",
      '{"skill":"demo-review","suggestion":"shorter"}',
      '{"skill":"demo-plan"',
    ].join("\n");
    expect(selectSkillLearnings(text, ["demo-plan", "demo-work", "demo-review"])).toEqual([
      { skill: "demo-work", date: "2026-07-25", task: "#1", friction: "slow", suggestion: "cache" },
      { skill: "demo-review", suggestion: "shorter" },
    ]);
  });
});

describe("stageEvidenceBundle", () => {
  let root: string;
  let results: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "wfbench-bundle-test-"));
    results = join(root, "results");
    mkdirSync(join(results, "transcripts"), { recursive: true, mode: 0o700 });
    chmodSync(join(results, "transcripts"), 0o700);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function transcript(name: string, text: string): { path: string; sha256: string; bytes: number; source: string } {
    writeFileSync(join(results, "transcripts", name), text, { mode: 0o600 });
    return { path: `transcripts/${name}`, sha256: createHash("sha256").update(text).digest("hex"), bytes: Buffer.byteLength(text), source: "parent-captured-stream-json" };
  }
  function writeRows(rows: readonly Record<string, unknown>[]): void {
    writeFileSync(join(results, "results.jsonl"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  }
  const base = (task: string, extra: Record<string, unknown>) => ({ task, class: "trivial", arm: "workflow", run: 0, resolved: false, error_kind: "oracle-failed", cost_usd: 0.1, num_turns: 3, output_tokens: 10, session_ids: ["s1"], diff_files: 1, diff_insertions: 4, diff_deletions: 2, verify_output: `${"v".repeat(700)}TAIL`, patch_artifact: null, ...extra });
  const stage = (extra: Partial<Parameters<typeof stageEvidenceBundle>[0]> = {}) => stageEvidenceBundle({ dest: join(root, "bundle"), resultsDir: results, learningsPath: null, priorProposalPath: null, skills: ["demo-work"], secrets: ["known-secret-value-1234"], ...extra });

  it("stages compact rows, transcripts, patches and learnings: owner-only, redacted, the dropped kinds left out", async () => {
    const secretLine = `${JSON.stringify({ type: "user", text: "token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 and known-secret-value-1234" })}\n`;
    writeFileSync(join(results, "t1.patch"), "diff --git a/x b/x\n", { mode: 0o600 });
    writeRows([base("t1", { transcript_artifacts: [transcript("a.jsonl", secretLine)], patch_artifact: "t1.patch" }), base("t2", { error_kind: "infra-error", transcript_artifacts: [] })]);
    const learnings = join(root, "learnings.jsonl");
    writeFileSync(learnings, `${JSON.stringify({ skill: "demo-work", friction: "f" })}\n{broken\n${JSON.stringify({ skill: "demo-plan", friction: "g" })}\n`);
    const prior = join(root, "prior.md");
    writeFileSync(prior, "# earlier proposal\n");
    const staged = await stage({ learningsPath: learnings, priorProposalPath: prior });
    expect(staged.selectedRows).toBe(1);
    expect(lstatSync(staged.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(staged.dir).sort()).toEqual(["gate-summary.json", "learnings.json", "patch-0.diff", "prior-proposal.md", "selected-rows.json", "transcript-0-0.jsonl"]);
    for (const name of readdirSync(staged.dir)) expect(lstatSync(join(staged.dir, name)).mode & 0o777).toBe(0o600);
    const rows = JSON.parse(readFileSync(join(staged.dir, "selected-rows.json"), "utf8")) as Record<string, unknown>[];
    expect(rows).toEqual([
      { task: "t1", class: "trivial", arm: "workflow", run: 0, resolved: false, error_kind: "oracle-failed", cost_usd: 0.1, num_turns: 3, output_tokens: 10, churn: "1f/+4/\u22122", session_ids: ["s1"], patch_file: "patch-0.diff", review_artifact: null, review_score: null, verify_tail: `${"v".repeat(596)}TAIL`, transcript_files: ["transcript-0-0.jsonl"] },
    ]);
    const staged0 = readFileSync(join(staged.dir, "transcript-0-0.jsonl"), "utf8");
    expect(staged0).not.toContain("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
    expect(staged0).not.toContain("known-secret-value-1234");
    expect(JSON.parse(readFileSync(join(staged.dir, "learnings.json"), "utf8"))).toEqual([{ skill: "demo-work", friction: "f" }]);
    expect(readFileSync(join(staged.dir, "prior-proposal.md"), "utf8")).toBe("# earlier proposal\n");
  });

  it("fails closed on a transcript whose bytes no longer match the row", async () => {
    const record = transcript("a.jsonl", `${JSON.stringify({ type: "x" })}\n`);
    writeFileSync(join(results, "transcripts", "a.jsonl"), `${JSON.stringify({ type: "y" })}\n`, { mode: 0o600 });
    writeRows([base("t1", { transcript_artifacts: [record] })]);
    await expect(stage()).rejects.toSatisfy((error) => isProposerSessionError(error) && error.code === "PROPOSER_EVIDENCE_INVALID" && /does not match the row's size and sha256/u.test(error.message));
  });

  it("fails closed on a group-readable transcript, a row without transcripts, a repeated path and foreign metadata", async () => {
    const record = transcript("a.jsonl", "{}\n");
    chmodSync(join(results, "transcripts", "a.jsonl"), 0o640);
    writeRows([base("t1", { transcript_artifacts: [record] })]);
    await expect(stage()).rejects.toThrow(/owner-only regular file/u);
    chmodSync(join(results, "transcripts", "a.jsonl"), 0o600);
    writeRows([base("t1", { transcript_artifacts: [] })]);
    await expect(stage()).rejects.toThrow(/carries no transcript_artifacts/u);
    writeRows([base("t1", { transcript_artifacts: [record] }), base("t2", { transcript_artifacts: [record] })]);
    await expect(stage()).rejects.toThrow(/cited twice/u);
    writeRows([base("t1", { transcript_artifacts: [{ ...record, path: "../results.jsonl" }] })]);
    await expect(stage()).rejects.toThrow(/transcript metadata/u);
    writeRows([base("t1", { transcript_artifacts: [record, transcript("b.jsonl", "{}\n"), transcript("c.jsonl", "{}\n")] })]);
    await expect(stage()).rejects.toThrow(/at most 2/u);
  });

  it("halves the per-artifact cap until the bundle fits 2 MiB, keeping every file under 256 KiB", async () => {
    const events = Array.from({ length: 120 }, (_, index) => `${JSON.stringify({ index, text: "z".repeat(3000) })}\n`).join("");
    const rows = Array.from({ length: 12 }, (_, index) => base(`t${String(index).padStart(2, "0")}`, { transcript_artifacts: [transcript(`a${index}.jsonl`, events), transcript(`b${index}.jsonl`, events)] }));
    writeRows(rows);
    const staged = await stage();
    expect(staged.selectedRows).toBe(12);
    expect(staged.trimmed).toEqual(["trimmed proposer evidence: per-artifact cap halved to 131072 bytes", "trimmed proposer evidence: per-artifact cap halved to 65536 bytes"]);
    const total = staged.files.reduce((sum, file) => sum + file.bytes, 0);
    expect(total).toBeLessThanOrEqual(BUNDLE_LIMITS.maxBundleBytes);
    for (const file of staged.files) expect(file.bytes).toBeLessThanOrEqual(file.name.startsWith("transcript-") ? 65536 : BUNDLE_LIMITS.maxFileBytes);
    // The newest events survive, in order; no event is cut.
    const kept = readFileSync(join(staged.dir, "transcript-0-0.jsonl"), "utf8").trimEnd().split("\n").map((line) => (JSON.parse(line) as { index: number }).index);
    expect(kept.at(-1)).toBe(119);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
  });

  it("after the smallest cap, drops the prior proposal, then rows from the end, in that order", async () => {
    const events = Array.from({ length: 120 }, (_, index) => `${JSON.stringify({ index, text: "z".repeat(4000) })}\n`).join("");
    const big = "d".repeat(100_000);
    const rows = Array.from({ length: 12 }, (_, index) => {
      writeFileSync(join(results, `p${index}.patch`), big, { mode: 0o600 });
      writeFileSync(join(results, `r${index}.json`), big, { mode: 0o600 });
      return base(`t${String(index).padStart(2, "0")}`, { session_ids: Array.from({ length: 10 }, (_, at) => `session-${at}-${"s".repeat(100)}`), patch_artifact: `p${index}.patch`, review_artifact: `r${index}.json`, transcript_artifacts: [transcript(`a${index}.jsonl`, events), transcript(`b${index}.jsonl`, events)] });
    });
    writeRows(rows);
    writeFileSync(join(results, "promotion.json"), JSON.stringify({ decisions: [{ candidate_arm: "candidate_workflow", decision: "keep_incumbent", reasons: ["g".repeat(300_000)] }] }));
    const learnings = join(root, "learnings.jsonl");
    writeFileSync(learnings, Array.from({ length: 40 }, () => JSON.stringify({ skill: "demo-work", friction: "f".repeat(10_000) })).join("\n"));
    const prior = join(root, "prior.md");
    writeFileSync(prior, "p".repeat(300_000));
    const staged = await stage({ learningsPath: learnings, priorProposalPath: prior });
    expect(staged.trimmed.slice(0, 4)).toEqual([
      "trimmed proposer evidence: per-artifact cap halved to 131072 bytes",
      "trimmed proposer evidence: per-artifact cap halved to 65536 bytes",
      "trimmed proposer evidence: per-artifact cap halved to 32768 bytes",
      "trimmed proposer evidence: dropped the prior proposal",
    ]);
    expect(staged.trimmed.slice(4).every((line) => line.startsWith("trimmed proposer evidence: dropped a row"))).toBe(true);
    expect(staged.selectedRows).toBeLessThan(12);
    expect(staged.selectedRows).toBe(12 - staged.trimmed.slice(4).length);
    expect(staged.files.some((file) => file.name === "prior-proposal.md")).toBe(false);
    expect(staged.files.reduce((sum, file) => sum + file.bytes, 0)).toBeLessThanOrEqual(BUNDLE_LIMITS.maxBundleBytes);
    // The rows kept are the first ones of the selection order.
    const kept = JSON.parse(readFileSync(join(staged.dir, "selected-rows.json"), "utf8")) as { task: string }[];
    expect(kept.map((r) => r.task)).toEqual(rows.slice(0, staged.selectedRows).map((r) => r.task));
  });

  it("stages the gate summary as one line per decision, never the promotion file's oracle paths, digests or bindings", async () => {
    writeRows([]);
    const promotion = {
      schema_version: 6,
      candidate_overlay: "/home/user/out/gen-0/frozen-overlay",
      target_base_digests: { ".claude/skills/demo-work/SKILL.md": "b".repeat(64) },
      selected_tasks: [{ id: "t1", oracle_digest: "a".repeat(64), oracle_files: [{ target: "tests/hidden-oracle-secret.test.ts", sha256: "c".repeat(64), size: 10 }] }],
      decisions: [
        { candidate_arm: "candidate_workflow", incumbent_arm: "workflow", decision: "keep_incumbent", reasons: ["r1", "r2", "r3", "r4"], tasks: [{ task: "t1", oracle_files: ["tests/hidden-oracle-secret.test.ts"] }] },
        { candidate_arm: "candidate_workflow_direct", incumbent_arm: "workflow_direct", decision: "insufficient_evidence", reasons: ["only one"] },
      ],
    };
    writeFileSync(join(results, "promotion.json"), JSON.stringify(promotion));
    const staged = await stage();
    const text = readFileSync(join(staged.dir, "gate-summary.json"), "utf8");
    expect(text).not.toContain("hidden-oracle-secret");
    expect(text).not.toContain("a".repeat(64));
    expect(text).not.toContain("frozen-overlay");
    expect(JSON.parse(text)).toEqual(["candidate_workflow: keep_incumbent \u2014 r1; r2; r3", "candidate_workflow_direct: insufficient_evidence \u2014 only one"]);
  });

  it("refuses an existing destination", async () => {
    writeRows([]);
    mkdirSync(join(root, "bundle"));
    await expect(stage()).rejects.toSatisfy((error) => isProposerSessionError(error) && error.code === "PROPOSER_BAD_INPUT");
  });
});
