// The whole offline demo suite through the real runner: real Claude Code CLI, real bwrap, real git, the scripted demo
// model behind the metering gateway, the hidden oracle. Asserts rows and report.md against the script itself.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { flattenReviewScore, isReviewOraclePassed, parseLabels, parseReviewOutput, scoreReview } from "@wfbench/review-scoring";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);

interface Row {
  [key: string]: unknown;
  arm: string;
  transcript_artifacts: { path: string; sha256: string; bytes: number; source: string }[];
}
interface ScriptTurn {
  content: { type: string; name?: string; input?: Record<string, unknown> }[];
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

/** The review-output.json bytes a scripted trajectory writes with its Write tool call. */
function scriptedReview(name: string): Buffer {
  const script = parse(readFileSync(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "utf8")) as { trajectories: { name: string; turns: ScriptTurn[] }[] };
  const write = script.trajectories
    .find((t) => t.name === name)
    ?.turns.flatMap((t) => t.content)
    .find((c) => c.type === "tool_use" && c.name === "Write" && c.input?.["file_path"] === "/review-output/review-output.json");
  expect(write, name).toBeDefined();
  return Buffer.from(String(write?.input?.["content"]), "utf8");
}

/** The script's own totals for a trajectory: what the CLI's result event and the gateway must both report. */
function scriptTotals(names: string[]): { input: number; output: number; cacheRead: number; cacheCreation: number; requests: number } {
  const script = parse(readFileSync(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "utf8")) as { trajectories: { name: string; turns: ScriptTurn[] }[] };
  const turns = script.trajectories.filter((t) => names.includes(t.name)).flatMap((t) => t.turns);
  expect(turns.length).toBeGreaterThan(0);
  return {
    input: turns.reduce((n, t) => n + t.usage.input_tokens, 0),
    output: turns.reduce((n, t) => n + t.usage.output_tokens, 0),
    cacheRead: turns.reduce((n, t) => n + (t.usage.cache_read_input_tokens ?? 0), 0),
    cacheCreation: turns.reduce((n, t) => n + (t.usage.cache_creation_input_tokens ?? 0), 0),
    requests: turns.length,
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("nx run runner:bench (the embedded offline demo suite)", () => {
  it("refuses a bad flag with exit 2, naming the flag and the fix", async () => {
    const result = await runRunner(["--workers", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--workers must be between 1 and 8");
  });

  it.skipIf(tools.skip)(
    "runs every arm once through the real CLI, sandbox, gateway and hidden oracle, and reports it",
    async () => {
      const out = join(mkdtempSync(join(tmpdir(), "wfbench-demo-")), "out");
      dirs.push(join(out, ".."));
      const result = await runRunner(["--out", out, "--repeats", "1"]);
      const context = `exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      expect(result.code, context).toBe(0);
      expect(result.stdout).toContain("report:");

      const rows = readResultRows<Row>(out);
      // Implementation arms run on the implementation task, the review arm on the review task only (Appendix B).
      expect(rows.map((r) => `${String(r["task"])}/${r.arm}`)).toEqual(["demo-clamp/workflow", "demo-clamp/workflow_direct", "demo-clamp/baseline", "demo-review-median/review"]);
      const byArm = Object.fromEntries(rows.map((r) => [r.arm, r])) as Record<string, Row>;
      const implementation = rows.filter((r) => r["task"] === "demo-clamp");

      // Every row says where its time went: one entry per phase, one per session the arm ran, and the cell's total.
      const sessionsOf: Record<string, number> = { workflow: 2, workflow_direct: 1, baseline: 1, review: 1 };
      for (const row of rows) {
        const timings = row["timings_ms"] as Record<string, number>;
        const sessions = Array.from({ length: sessionsOf[row.arm] ?? 0 }, (_, i) => `session_${i + 1}`);
        expect(Object.keys(timings).sort(), row.arm).toEqual(["capture", "cleanup", "materialize", "oracle", "setup", "total", "verify", ...sessions].sort());
        const inside = sessions.reduce((sum, key) => sum + (timings[key] ?? 0), 0);
        expect(timings["total"] ?? 0, row.arm).toBeGreaterThanOrEqual(inside);
      }
      expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/Harness overhead: median \d+\.\d\d s per cell \(max \d+\.\d\d s over 4 cell\(s\)\)/u);

      // Skill proof from the parent-captured stream: the workflow arms invoked their skills, the baseline did not.
      expect(byArm["workflow"]?.["skill_invoked"]).toBe(true);
      expect(byArm["workflow_direct"]?.["skill_invoked"]).toBe(true);
      expect(byArm["baseline"]?.["skill_invoked"]).toBe(false);
      expect(byArm["workflow"]?.["plan_produced"]).toBe(true);

      // Verdicts as scripted: every arm passes the visible tests; only the baseline misses the hidden error case.
      for (const row of implementation) {
        expect(row["ok"], row.arm).toBe(true);
        expect(row["authored_tests_passed"], row.arm).toBe(true);
        expect(row["authored_test_output"]).toMatch(/\[verify exited 0\]$/u);
      }
      expect(byArm["workflow"]).toMatchObject({ oracle_passed: true, oracle_output: "hidden oracle passed", resolved: true, error_kind: null });
      expect(byArm["workflow_direct"]).toMatchObject({ oracle_passed: true, resolved: true, error_kind: null });
      expect(byArm["baseline"]).toMatchObject({ oracle_passed: false, oracle_output: "hidden oracle failed", resolved: false, error_kind: "oracle-failed" });

      // Usage: the CLI's result event and the gateway's wire summary both equal the script's totals.
      const expected: Record<string, string[]> = {
        workflow: ["demo-clamp-workflow-plan", "demo-clamp-workflow-work"],
        workflow_direct: ["demo-clamp-workflow-direct"],
        baseline: ["demo-clamp-baseline"],
        review: ["demo-review-median"],
      };
      for (const [arm, names] of Object.entries(expected)) {
        const totals = scriptTotals(names);
        const row = byArm[arm] as Row;
        expect(row, arm).toMatchObject({
          input_tokens: totals.input,
          output_tokens: totals.output,
          cache_read_input_tokens: totals.cacheRead,
          cache_creation_input_tokens: totals.cacheCreation,
          wire_input_tokens: totals.input,
          wire_output_tokens: totals.output,
          wire_cache_read_input_tokens: totals.cacheRead,
          wire_cache_creation_input_tokens: totals.cacheCreation,
          wire_requests: totals.requests,
          wire_failed_requests: 0,
          wire_usage_complete: true,
        });
        expect(typeof row["wire_cost_usd"]).toBe("number");
        expect(row["session_ids"]).toHaveLength(names.length);
      }

      // Digests and bindings.
      const prompts: Record<string, string> = {
        "demo-clamp": "Add a `clamp(value, min, max)` export to src/math.js that limits value to the range [min, max]. It must throw a RangeError when min > max.",
        "demo-review-median": "Review the local change that adds `median(values)` to src/math.js. Report only actionable defects introduced by the local diff.",
      };
      const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");
      for (const row of rows) {
        expect(row["task_prompt_digest"]).toBe(sha256(prompts[String(row["task"])] ?? ""));
        for (const field of ["oracle_digest", "oracle_command_digest", "oracle_manifest_digest"]) expect(row[field], field).toMatch(/^[0-9a-f]{64}$/u);
        expect(row["task_base_sha"]).toMatch(/^[0-9a-f]{40}$/u);
        expect(row["sanitized_task_sha"]).toBe(row["variant_head_sha"]);
        expect(row["sanitized_task_sha"]).not.toBe(row["task_base_sha"]);
        expect(row.transcript_artifacts.length).toBeGreaterThan(0);
        for (const artifact of row.transcript_artifacts) {
          expect(artifact.source).toBe("parent-captured-stream-json");
          expect(sha256(readFileSync(join(out, artifact.path)))).toBe(artifact.sha256);
        }
        expect(row["diff_files"]).toBe(1);
      }
      expect(byArm["workflow"]?.["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(byArm["workflow_direct"]?.["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(byArm["workflow"]?.["skill_digest"]).not.toBe(byArm["workflow_direct"]?.["skill_digest"]);
      expect(byArm["baseline"]?.["skill_digest"]).toBeNull();
      expect(readFileSync(join(out, "demo-clamp-baseline-run0.patch"), "utf8")).toContain("+export function clamp(value, min, max) {");
      for (const row of implementation) expect(Object.keys(row).filter((key) => key.startsWith("review_")), row.arm).toEqual([]);

      // The review row: its score is exactly review-scoring's score of the scripted artifact against the hidden labels.
      const written = scriptedReview("demo-review-median");
      const review = parseReviewOutput(written);
      const labels = parseLabels(readFileSync(join(REPO_ROOT, "oracles/demo/median.review.labels.json")));
      if (!review.ok || !labels.ok) throw new Error("the scripted review and the demo labels must parse");
      const score = scoreReview(review.value.verdict, review.value.findings, labels.value.findings);
      const reviewRow = byArm["review"] as Row;
      expect(reviewRow).toMatchObject({ ...flattenReviewScore(score), review_evidence_valid: true, skill_invoked: true, ok: true, authored_tests_passed: true });
      expect(reviewRow).toMatchObject({ oracle_passed: isReviewOraclePassed(score), resolved: isReviewOraclePassed(score), oracle_output: "hidden review labels matched", error_kind: null });
      expect(score).toMatchObject({ true_positives: 2, false_positives: 0, false_negatives: 0, verdict_correct: true });
      expect(reviewRow["review_artifact"]).toBe("demo-review-median-review-run0.review.json");
      expect(readFileSync(join(out, "demo-review-median-review-run0.review.json"))).toEqual(written);
      expect(reviewRow["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(reviewRow["tool_use_counts"]).toEqual({ Skill: 1, Bash: 1, Read: 1, Write: 1 });
      // The workspace is the setup's change, untouched by the read-only review session.
      expect(readFileSync(join(out, "demo-review-median-review-run0.patch"), "utf8")).toContain("+  const sorted = values.sort();");

      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("# wfbench workflow benchmark");
      expect(report).toContain("**Scripted demo model.**");
      expect(report).toMatch(/\| demo-clamp \| trivial \| workflow \| 1\/1 \| 27750 \| 3600 \| 14400 \| 538 \|/u);
      expect(report).toMatch(/\| demo-clamp \| trivial \| baseline \| 0\/1 \| 9400 \| 1700 \| 5100 \| 168 \| .* \| oracle-failed×1 \|/u);
      expect(report).toContain("| demo-clamp | trivial | **workflow_direct savings %** |");
      expect(report).toContain("- Selected tasks (2): demo-clamp, demo-review-median");
      expect(report).toContain("## Review quality");
      expect(report).toContain("| demo-review-median | review | 2.0 | 0.0 | 0.0 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |");
      expect(report).toMatch(/\| demo-review-median \| review-defect \| review \| 1\/1 \|/u);
    },
    90_000,
  );
});
