// The whole offline demo suite through the real runner: real Claude Code CLI, real bwrap, real git, the scripted demo
// model behind the metering gateway, the hidden oracle. Asserts rows and report.md against the script itself.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ImplementationDecisionSchema,
  ImplementationPolicySchema,
  PromotionSchema,
  aggregateByTaskArm,
  buildCandidatePolicy,
  evaluateImplementationCandidate,
  parseResultRows,
  type ImplementationDecision,
  type Promotion,
} from "@wfbench/promotion-gate";
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

const IMPLEMENTATION_TASKS = ["demo-clamp", "demo-ledger-rounding", "demo-ledger-currency"];
const REVIEW_TASKS = ["demo-review-median", "demo-review-split", "demo-review-variance"];
const cellOf = (row: Row): string => `${String(row["task"])}/${row.arm}`;

const resolvedWith = (skill: boolean) => ({ ok: true, resolved: true, authored_tests_passed: true, oracle_passed: true, error_kind: null, skill_invoked: skill });
const reviewResolved = { ok: true, resolved: true, authored_tests_passed: true, oracle_passed: true, error_kind: null, skill_invoked: true, review_evidence_valid: true };
/** Every cell of the default sweep in canonical order, with the verdict the harness must reach from host evidence. */
const OUTCOMES: Record<string, Record<string, unknown>> = {
  // Trivial: the baseline passes the visible tests but misses the hidden error case.
  "demo-clamp/workflow": resolvedWith(true),
  "demo-clamp/workflow_direct": resolvedWith(true),
  "demo-clamp/baseline": { ok: true, resolved: false, authored_tests_passed: true, oracle_passed: false, error_kind: "oracle-failed", skill_invoked: false },
  // Investigation: the direct session never loads its skill. Its patch passes verify and the oracle, the row does not.
  "demo-ledger-rounding/workflow": resolvedWith(true),
  "demo-ledger-rounding/workflow_direct": { ok: false, resolved: false, authored_tests_passed: true, oracle_passed: true, error_kind: "skill-not-invoked", skill_invoked: false },
  "demo-ledger-rounding/baseline": resolvedWith(false),
  // Cross-module: the workflow alone resolves it; direct mode passes verify and fails the oracle, the baseline fails verify.
  "demo-ledger-currency/workflow": resolvedWith(true),
  "demo-ledger-currency/workflow_direct": { ok: true, resolved: false, authored_tests_passed: true, oracle_passed: false, error_kind: "oracle-failed", skill_invoked: true },
  "demo-ledger-currency/baseline": { ok: true, resolved: false, authored_tests_passed: false, error_kind: "verify-failed", skill_invoked: false },
  "demo-review-median/review": reviewResolved,
  "demo-review-split/review": reviewResolved,
  "demo-review-variance/review": reviewResolved,
};
/** The scripted trajectories each cell must have played, session by session. */
const TRAJECTORIES: Record<string, string[]> = {
  "demo-clamp/workflow": ["demo-clamp-workflow-plan", "demo-clamp-workflow-work"],
  "demo-clamp/workflow_direct": ["demo-clamp-workflow-direct"],
  "demo-clamp/baseline": ["demo-clamp-baseline"],
  "demo-ledger-rounding/workflow": ["demo-rounding-workflow-plan", "demo-rounding-workflow-work"],
  "demo-ledger-rounding/workflow_direct": ["demo-rounding-workflow-direct"],
  "demo-ledger-rounding/baseline": ["demo-rounding-baseline"],
  "demo-ledger-currency/workflow": ["demo-currency-workflow-plan", "demo-currency-workflow-work"],
  "demo-ledger-currency/workflow_direct": ["demo-currency-workflow-direct"],
  "demo-ledger-currency/baseline": ["demo-currency-baseline"],
  "demo-review-median/review": ["demo-review-median"],
  "demo-review-split/review": ["demo-review-split"],
  "demo-review-variance/review": ["demo-review-variance"],
};

/** The demo suite's MCP server and the tools every arm but baseline_nomcp gets from it (tasks/demo.yaml). */
const DEMO_MCP_TOOLS = ["mcp__wfbench-demo__find_references", "mcp__wfbench-demo__impact"];
interface StreamEvent {
  type?: string;
  subtype?: string;
  tools?: string[];
  mcp_servers?: { name: string; status: string }[];
  message?: { content?: unknown };
}
interface Block {
  type?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

/** How many MCP calls of the demo server the named trajectories script. */
function scriptedMcpCalls(names: string[]): number {
  const script = parse(readFileSync(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "utf8")) as { trajectories: { name: string; turns: ScriptTurn[] }[] };
  return script.trajectories
    .filter((t) => names.includes(t.name))
    .flatMap((t) => t.turns.flatMap((turn) => turn.content))
    .filter((c) => c.type === "tool_use" && c.name?.startsWith("mcp__wfbench-demo__") === true).length;
}

/** A stored (parent-captured) transcript's events. */
function eventsOf(path: string): StreamEvent[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as StreamEvent);
}

/** Each MCP tool call of a stored transcript with the text of the result the CLI fed back to the model. */
function mcpCallsOf(events: StreamEvent[]): { tool: string; input: Record<string, unknown>; text: string; isError: boolean }[] {
  const blocks = (type: string): Block[] => events.filter((e) => e.type === type && Array.isArray(e.message?.content)).flatMap((e) => e.message?.content as Block[]);
  const results = new Map(blocks("user").filter((b) => b.type === "tool_result").map((b) => [b.tool_use_id, b]));
  return blocks("assistant")
    .filter((b) => b.type === "tool_use" && b.name?.startsWith("mcp__") === true)
    .map((b) => {
      const result = results.get(b.id);
      const content = result?.content;
      const text = typeof content === "string" ? content : Array.isArray(content) ? (content as { text?: string }[]).map((part) => part.text ?? "").join("\n") : "";
      return { tool: String(b.name), input: b.input ?? {}, text, isError: result?.is_error === true };
    });
}

/** The lines of a file of a demo repository (tasks/demo/repos/<repo>) on the host that mention `symbol` as a word. */
function hostMentions(repo: string, path: string, symbol: string): string[] {
  return readFileSync(join(REPO_ROOT, "tasks/demo/repos", repo, path), "utf8")
    .split("\n")
    .filter((line) => new RegExp(`\\b${symbol}\\b`, "u").test(line));
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
      const result = await runRunner(["--out", out, "--repeats", "1", "--workers", "2"]);
      const context = `exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      expect(result.code, context).toBe(0);
      expect(result.stdout).toContain("report:");
      // Two-session (plan → work) cells start first within the packed window: the second task's workflow cell goes
      // before the first task's one-session cells, and the count says how many have started. Rows stay canonical.
      const starts = result.stdout.split("\n").filter((line) => / starting \(/u.test(line));
      expect(starts.slice(0, 2).map((line) => line.replace(/, \d+m elapsed\)$/u, ")")), context).toEqual(["[demo-clamp][workflow][run 0] starting (1/12)", "[demo-ledger-rounding][workflow][run 0] starting (2/12)"]);

      const rows = readResultRows<Row>(out);
      // Implementation arms run on the implementation tasks, the review arm on the review tasks only (Appendix B).
      expect(rows.map(cellOf)).toEqual(Object.keys(OUTCOMES));
      const byCell = Object.fromEntries(rows.map((r) => [cellOf(r), r])) as Record<string, Row>;
      const byArm = (arm: string): Row => byCell[`demo-clamp/${arm}`] as Row;
      const implementation = rows.filter((r) => IMPLEMENTATION_TASKS.includes(String(r["task"])));

      // Every row says where its time went: one entry per phase, one per session the arm ran, and the cell's total.
      const sessionsOf: Record<string, number> = { workflow: 2, workflow_direct: 1, baseline: 1, review: 1 };
      for (const row of rows) {
        const timings = row["timings_ms"] as Record<string, number>;
        const sessions = Array.from({ length: sessionsOf[row.arm] ?? 0 }, (_, i) => `session_${i + 1}`);
        expect(Object.keys(timings).sort(), cellOf(row)).toEqual(["capture", "cleanup", "materialize", "oracle", "setup", "task_commands", "total", "verify", ...sessions].sort());
        const inside = sessions.reduce((sum, key) => sum + (timings[key] ?? 0), 0);
        expect(timings["total"] ?? 0, cellOf(row)).toBeGreaterThanOrEqual(inside);
        // The task's own commands run inside setup, verify and oracle (a cell's verify always runs one).
        expect(timings["task_commands"] ?? 0, cellOf(row)).toBeGreaterThan(0);
        expect(timings["task_commands"] ?? 0, cellOf(row)).toBeLessThanOrEqual((timings["setup"] ?? 0) + (timings["verify"] ?? 0) + (timings["oracle"] ?? 0) + 2);
      }
      expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/Harness overhead: median \d+\.\d\d s per cell \(max \d+\.\d\d s over 12 cell\(s\)\)/u);
      expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/the harness's own work \(copies, git, digests, staging, cleanup\) a median of \d+\.\d\d s per cell \(max \d+\.\d\d s over 12 cell\(s\)\)/u);

      // The outcomes the demo exists to show, judged by the harness from host evidence (verify, the hidden oracle, the
      // parent-captured stream), never from what a session claims: see OUTCOMES.
      for (const [cell, outcome] of Object.entries(OUTCOMES)) expect(byCell[cell], cell).toMatchObject(outcome);
      // The baseline's clamp passes the visible tests and fails only the hidden error case.
      expect(byArm("baseline")).toMatchObject({ oracle_output: "hidden oracle failed", authored_test_output: expect.stringMatching(/\[verify exited 0\]$/u) });
      expect(byArm("workflow")).toMatchObject({ oracle_output: "hidden oracle passed", plan_produced: true });
      // The direct session that skipped demo-work made the right patch (verify and the oracle pass), yet the row is not
      // resolved: without a successful Skill call in the parent stream it measures no skill.
      expect(byCell["demo-ledger-rounding/workflow_direct"]?.["tool_use_counts"]).toEqual({ Read: 3, Edit: 1, Bash: 1 });
      expect(byCell["demo-ledger-rounding/workflow"]?.["tool_use_counts"]).toMatchObject({ Skill: 2 });
      // Cross-module: only the workflow touched both modules.
      expect(byCell["demo-ledger-currency/workflow"]?.["diff_files"]).toBe(2);
      for (const arm of ["workflow_direct", "baseline"]) expect(byCell[`demo-ledger-currency/${arm}`]?.["diff_files"], arm).toBe(1);
      expect(readFileSync(join(out, "demo-ledger-currency-workflow-run0.patch"), "utf8")).toContain("+export function currencyOf(entries) {");
      expect(byCell["demo-ledger-currency/baseline"]?.["authored_test_output"]).toMatch(/\[verify exited 1\]$/u);
      for (const row of implementation) expect(row["authored_test_output"], cellOf(row)).toMatch(/\[verify exited \d+\]$/u);

      // Usage: the CLI's result event and the gateway's wire summary both equal the script's totals.
      for (const [cell, names] of Object.entries(TRAJECTORIES)) {
        const totals = scriptTotals(names);
        const row = byCell[cell] as Row;
        expect(row, cell).toMatchObject({
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

      // MCP (tasks/demo.yaml declares the demo server): every session of these arms has its tools, and each row
      // counts exactly the calls its trajectories script: the workflow asks before it plans or edits, the others never.
      for (const [cell, names] of Object.entries(TRAJECTORIES)) {
        const row = byCell[cell] as Row;
        expect(row["mcp_tool_uses"], cell).toEqual({ "wfbench-demo": scriptedMcpCalls(names) });
        for (const artifact of row.transcript_artifacts) {
          const init = eventsOf(join(out, artifact.path)).find((e) => e.type === "system" && e.subtype === "init");
          expect(init?.tools, cell).toEqual(expect.arrayContaining(DEMO_MCP_TOOLS));
          expect(init?.mcp_servers, cell).toEqual([expect.objectContaining({ name: "wfbench-demo", status: "connected" })]);
        }
      }
      expect(byCell["demo-ledger-currency/workflow"]?.["mcp_tool_uses"]).toEqual({ "wfbench-demo": 2 });
      expect(byCell["demo-ledger-rounding/workflow"]?.["mcp_tool_uses"]).toEqual({ "wfbench-demo": 1 });
      for (const task of IMPLEMENTATION_TASKS) expect(byCell[`${task}/baseline`]?.["mcp_tool_uses"], task).toEqual({ "wfbench-demo": 0 });
      // The answers in the stored transcripts are the server's own, computed over the cell's read-only workspace: each
      // impact count and each reference line is checked against the demo repository's files on the host.
      const currency = byCell["demo-ledger-currency/workflow"] as Row;
      const [impact, ...planRest] = mcpCallsOf(eventsOf(join(out, currency.transcript_artifacts[0]?.path ?? "")));
      expect(planRest).toEqual([]);
      expect(impact).toMatchObject({ tool: "mcp__wfbench-demo__impact", input: { symbol: "balance" }, isError: false });
      const impactLines = impact?.text.split("\n") ?? [];
      expect(impactLines.at(-1)).toBe("tests to re-run: test/currency.test.mjs test/report.test.mjs");
      const counted = impactLines.slice(0, -1).map((line) => /^(\S+): (\d+) mention\(s\)( \(test\))?$/u.exec(line));
      expect(counted.map((match) => match?.[1])).toEqual(["src/ledger.js", "src/report.js", "test/currency.test.mjs", "test/report.test.mjs"]);
      for (const match of counted) expect(Number(match?.[2]), match?.[1]).toBe(hostMentions("ledger", match?.[1] ?? "", "balance").length);
      const [references, ...workRest] = mcpCallsOf(eventsOf(join(out, currency.transcript_artifacts[1]?.path ?? "")));
      expect(workRest).toEqual([]);
      expect(references).toMatchObject({ tool: "mcp__wfbench-demo__find_references", input: { symbol: "balance" }, isError: false });
      const referenced = (references?.text.split("\n") ?? []).map((line) => /^([^:]+):(\d+): (.*)$/u.exec(line));
      // The live workspace: the plan the first session wrote is found too, before the work session edits anything.
      expect(referenced.some((match) => match?.[1] === "docs/plans/currency.md")).toBe(true);
      expect(referenced.filter((match) => match?.[1]?.startsWith("src/") === true).map((match) => `${match?.[1]}:${match?.[2]}`)).toEqual(["src/ledger.js:4", "src/report.js:1", "src/report.js:4", "src/report.js:6"]);
      for (const match of referenced.filter((m) => m?.[1]?.startsWith("src/") === true || m?.[1]?.startsWith("test/") === true)) {
        const hostLine = readFileSync(join(REPO_ROOT, "tasks/demo/repos/ledger", match?.[1] ?? ""), "utf8").split("\n")[Number(match?.[2]) - 1];
        expect(hostLine?.trim().slice(0, 200), `${match?.[1]}:${match?.[2]}`).toBe(match?.[3]);
      }
      const [rounding] = mcpCallsOf(eventsOf(join(out, (byCell["demo-ledger-rounding/workflow"] as Row).transcript_artifacts[0]?.path ?? "")));
      expect(rounding).toMatchObject({ tool: "mcp__wfbench-demo__find_references", input: { symbol: "parseAmount" }, isError: false });
      expect(rounding?.text).toContain(`src/money.js:${String(readFileSync(join(REPO_ROOT, "tasks/demo/repos/ledger/src/money.js"), "utf8").split("\n").findIndex((line) => /export function parseAmount\b/u.test(line)) + 1)}: export function parseAmount(`);

      // Digests and bindings.
      const suite = parse(readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8")) as { tasks: { id: string; prompt: string }[] };
      const prompts: Record<string, string> = Object.fromEntries(suite.tasks.map((t) => [t.id, t.prompt]));
      // The folded YAML prompt reaches the digest as one line (pinned for two tasks, so a loader change cannot hide).
      expect(prompts["demo-clamp"]).toBe("Add a `clamp(value, min, max)` export to src/math.js that limits value to the range [min, max]. It must throw a RangeError when min > max.");
      expect(prompts["demo-review-median"]).toBe("Review the local change that adds `median(values)` to src/math.js. Report only actionable defects introduced by the local diff.");
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
        if (row["task"] !== "demo-ledger-currency") expect(row["diff_files"], cellOf(row)).toBe(1);
      }
      expect(byArm("workflow")["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(byArm("workflow_direct")["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      expect(byArm("workflow")["skill_digest"]).not.toBe(byArm("workflow_direct")["skill_digest"]);
      expect(byArm("baseline")["skill_digest"]).toBeNull();
      // Both repositories ship byte-identical skills, so a skill overlay measures the same incumbent on every task.
      expect(byCell["demo-ledger-currency/workflow"]?.["skill_digest"]).toBe(byArm("workflow")["skill_digest"]);
      expect(readFileSync(join(out, "demo-clamp-baseline-run0.patch"), "utf8")).toContain("+export function clamp(value, min, max) {");
      for (const row of implementation) expect(Object.keys(row).filter((key) => key.startsWith("review_")), cellOf(row)).toEqual([]);

      // The review rows: each score is exactly review-scoring's score of the scripted artifact against the hidden labels.
      const expectedScores: Record<string, { true_positives: number; false_positives: number; false_negatives: number; verdict_correct: boolean }> = {
        "demo-review-median": { true_positives: 2, false_positives: 0, false_negatives: 0, verdict_correct: true },
        "demo-review-split": { true_positives: 2, false_positives: 0, false_negatives: 0, verdict_correct: true },
        "demo-review-variance": { true_positives: 0, false_positives: 0, false_negatives: 0, verdict_correct: true },
      };
      for (const [task, expectedScore] of Object.entries(expectedScores)) {
        const written = scriptedReview(task);
        const review = parseReviewOutput(written);
        const labelsFile = (parse(readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8")) as { tasks: { id: string; oracle: { files: { source: string }[] } }[] }).tasks.find((t) => t.id === task)?.oracle.files[0]?.source;
        const labels = parseLabels(readFileSync(join(REPO_ROOT, "oracles", labelsFile ?? "")));
        if (!review.ok || !labels.ok) throw new Error(`the scripted review and the labels of ${task} must parse`);
        const score = scoreReview(review.value.verdict, review.value.findings, labels.value.findings);
        const reviewRow = byCell[`${task}/review`] as Row;
        expect(reviewRow, task).toMatchObject({ ...flattenReviewScore(score), review_evidence_valid: true, skill_invoked: true, ok: true, authored_tests_passed: true });
        expect(reviewRow, task).toMatchObject({ oracle_passed: isReviewOraclePassed(score), resolved: isReviewOraclePassed(score), oracle_output: "hidden review labels matched", error_kind: null });
        expect(score, task).toMatchObject(expectedScore);
        expect(reviewRow["review_artifact"]).toBe(`${task}-review-run0.review.json`);
        expect(readFileSync(join(out, `${task}-review-run0.review.json`))).toEqual(written);
        expect(reviewRow["skill_digest"]).toMatch(/^[0-9a-f]{64}$/u);
        expect(reviewRow["tool_use_counts"]).toEqual({ Skill: 1, Bash: 1, Read: 1, Write: 1 });
      }
      // Precision and recall from the rows themselves: the good reviewer finds every planted defect and nothing else,
      // and on the clean control it reports nothing (0 false positives) and approves.
      for (const task of ["demo-review-median", "demo-review-split"]) expect(byCell[`${task}/review`], task).toMatchObject({ review_precision: 1, review_recall: 1, review_false_positives: 0 });
      expect(byCell["demo-review-variance/review"]).toMatchObject({ review_false_positives: 0, review_true_positives: 0, review_clean_control: true, review_clean_pass: true, review_verdict_correct: true });
      // The workspace is the setup's change, untouched by the read-only review session.
      expect(readFileSync(join(out, "demo-review-median-review-run0.patch"), "utf8")).toContain("+  const sorted = values.sort();");
      expect(readFileSync(join(out, "demo-review-split-review-run0.patch"), "utf8")).toContain("+  const share = Math.round(cents / parts);");
      // demo-review-split is a case of the review-case corpus: the cell's change is exactly the corpus patch, applied by
      // the generated setup, and the corpus directory was gone before the session (no trace in its stream).
      const corpusPatch = join(REPO_ROOT, "tasks/demo/review-corpus/eval/workflow_bench/review_cases/demo-split-defect.patch");
      expect(readFileSync(join(out, "demo-review-split-review-run0.patch"))).toEqual(readFileSync(corpusPatch));
      const split = byCell["demo-review-split/review"] as Row;
      expect(split["task_asset_snapshot_digest"]).toMatch(/^[0-9a-f]{64}$/u);
      for (const artifact of split.transcript_artifacts) expect(readFileSync(join(out, artifact.path), "utf8")).not.toContain("workflow_bench");

      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("# wfbench workflow benchmark");
      expect(report).toContain("**Scripted demo model.**");
      expect(report).toMatch(/\| demo-clamp \| trivial \| workflow \| 1\/1 \| 27750 \| 3600 \| 14400 \| 538 \|/u);
      expect(report).toMatch(/\| demo-clamp \| trivial \| baseline \| 0\/1 \| 9400 \| 1700 \| 5100 \| 168 \| .* \| oracle-failed×1 \|/u);
      expect(report).toContain("| demo-clamp | trivial | **workflow_direct savings %** |");
      expect(report).toMatch(/\| demo-ledger-rounding \| investigation-bug \| workflow_direct \| 0\/1 \| .* \| skill-not-invoked×1 \|/u);
      expect(report).toMatch(/\| demo-ledger-rounding \| investigation-bug \| baseline \| 1\/1 \|/u);
      expect(report).toMatch(/\| demo-ledger-currency \| cross-module \| workflow \| 1\/1 \|/u);
      expect(report).toMatch(/\| demo-ledger-currency \| cross-module \| workflow_direct \| 0\/1 \| .* \| oracle-failed×1 \|/u);
      expect(report).toMatch(/\| demo-ledger-currency \| cross-module \| baseline \| 0\/1 \| .* \| verify-failed×1 \|/u);
      expect(report).toContain(`- Selected tasks (6): ${[...IMPLEMENTATION_TASKS, ...REVIEW_TASKS].join(", ")}`);
      expect(report).toContain("## Review quality");
      expect(report).toContain("| demo-review-median | review | 2.0 | 0.0 | 0.0 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |");
      expect(report).toContain("| demo-review-split | review | 2.0 | 0.0 | 0.0 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |");
      expect(report).toContain("| demo-review-variance | review | 0.0 | 0.0 | 0.0 | n/a | n/a | n/a | n/a | n/a |");
      expect(report).toMatch(/\| demo-review-median \| review-defect \| review \| 1\/1 \|/u);
      expect(report).toMatch(/\| demo-review-variance \| review-clean \| review \| 1\/1 \|/u);
    },
    300_000,
  );
});

/** The candidate arms of a work overlay, each with the incumbent the gate compares it against. */
const CANDIDATE_PAIRS = [
  ["candidate_workflow", "workflow"],
  ["candidate_workflow_direct", "workflow_direct"],
] as const;

/** Runs the demo with a work overlay at --repeats 3; returns its rows and a promotion.json the gate recomputes. */
async function sweepWithOverlay(overlay: string): Promise<{ rows: Row[]; promotion: Promotion }> {
  const out = join(mkdtempSync(join(tmpdir(), "wfbench-demo-gate-")), "out");
  dirs.push(join(out, ".."));
  const result = await runRunner(["--out", out, "--candidate-overlay", join(REPO_ROOT, overlay), "--repeats", "3", "--workers", "2"]);
  expect(result.code, `exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
  const rows = readResultRows<Row>(out);
  // Only the implementation tasks carry the overlay's pairs: 3 tasks x 4 arms x 3 repeats.
  expect(rows).toHaveLength(36);
  expect(new Set(rows.map((r) => String(r["task"])))).toEqual(new Set(IMPLEMENTATION_TASKS));
  const promotion = PromotionSchema.parse(JSON.parse(readFileSync(join(out, "promotion.json"), "utf8")));
  expect(promotion.run_status).toBe("complete");
  const parsed = parseResultRows(readResultRows<unknown>(out));
  if (!parsed.ok) throw new Error(parsed.error.message);
  const results = aggregateByTaskArm(parsed.value);
  // The written decisions are exactly what the gate computes from results.jsonl, not from anything a session said.
  for (const [candidateArm, incumbentArm] of CANDIDATE_PAIRS) {
    const policy = ImplementationPolicySchema.parse(buildCandidatePolicy(candidateArm, { minRuns: 3 }));
    const recomputed = evaluateImplementationCandidate({ results, incumbentArm, candidateArm, policy, model: "claude-sonnet-4-5" });
    expect(promotion.decisions.find((d) => d.candidate_arm === candidateArm)).toEqual(JSON.parse(JSON.stringify(recomputed)));
  }
  return { rows, promotion };
}

/** The implementation gate's decision for one candidate arm, as written in promotion.json. */
function decisionOf(promotion: Promotion, arm: string): ImplementationDecision {
  return ImplementationDecisionSchema.parse(promotion.decisions.find((d) => d.candidate_arm === arm));
}
const rowsOf = (rows: Row[], task: string, arm: string): Row[] => rows.filter((r) => r["task"] === task && r.arm === arm);

describe("the demo's work overlays through the promotion gate (--repeats 3)", () => {
  it.skipIf(tools.skip)(
    "promotes work-v2: cheaper on every resolved task, and its direct session loads the skill the incumbent skips",
    async () => {
      const { rows, promotion } = await sweepWithOverlay("tasks/demo/overlays/work-v2");
      for (const [candidateArm] of CANDIDATE_PAIRS) expect(decisionOf(promotion, candidateArm).decision, candidateArm).toBe("promote");
      // The rows behind it: the incumbent's direct rounding session skipped demo-work every time, v2's never did.
      for (const row of rowsOf(rows, "demo-ledger-rounding", "workflow_direct")) expect(row).toMatchObject({ error_kind: "skill-not-invoked", resolved: false });
      for (const row of rowsOf(rows, "demo-ledger-rounding", "candidate_workflow_direct")) expect(row).toMatchObject({ error_kind: null, resolved: true, skill_invoked: true });
      const direct = decisionOf(promotion, "candidate_workflow_direct");
      expect(direct.gated_tasks).toEqual(["demo-clamp", "demo-ledger-rounding"]);
      // Neither direct arm resolves the cross-module task, so it gives no quality signal (held only to the cost cap).
      expect(direct.ungated_tasks).toEqual(["demo-ledger-currency"]);
      expect(direct.reasons).toContain("improves total task resolution by 3 runs across the paired tasks");
      for (const task of IMPLEMENTATION_TASKS) {
        for (const row of [...rowsOf(rows, task, "workflow"), ...rowsOf(rows, task, "candidate_workflow")]) expect(row, task).toMatchObject({ resolved: true });
      }
      const workflow = decisionOf(promotion, "candidate_workflow");
      expect(workflow.gated_tasks).toEqual(IMPLEMENTATION_TASKS.slice().sort());
      expect(workflow.median_improvement_pct).toBeGreaterThanOrEqual(5);
    },
    600_000,
  );

  it.skipIf(tools.skip)(
    "keeps the incumbent over work-v3: its sessions pass the visible tests and fail the hidden clamp error case",
    async () => {
      const { rows, promotion } = await sweepWithOverlay("tasks/demo/overlays/work-v3");
      for (const [candidateArm, incumbentArm] of CANDIDATE_PAIRS) {
        expect(decisionOf(promotion, candidateArm).decision, candidateArm).toBe("keep_incumbent");
        for (const row of rowsOf(rows, "demo-clamp", candidateArm)) expect(row, candidateArm).toMatchObject({ authored_tests_passed: true, oracle_passed: false, resolved: false, error_kind: "oracle-failed", skill_invoked: true });
        for (const row of rowsOf(rows, "demo-clamp", incumbentArm)) expect(row, incumbentArm).toMatchObject({ resolved: true });
        const clamp = decisionOf(promotion, candidateArm).tasks.find((t) => t.task === "demo-clamp");
        expect(clamp).toMatchObject({ incumbent_resolved: "3/3", candidate_resolved: "0/3", gated: true });
        expect(decisionOf(promotion, candidateArm).reasons.join("\n"), candidateArm).toMatch(/demo-clamp[^\n]*resolution regressed from 100(\.0)?% to 0(\.0)?%/u);
      }
    },
    600_000,
  );
});
