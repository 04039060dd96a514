// The offline demo suite with every non-candidate arm through the real runner (real Claude Code CLI, bwrap, git,
// gateway, scripted demo model, hidden oracles): the CE arms against the fixture Compound Engineering plugin and the
// MCP-free baseline beside the GitNexus arms. Judged from results.jsonl and the parent-captured transcripts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const PLUGIN = join(REPO_ROOT, "packages/plugin-snapshot/fixtures/compound-engineering");
const VERSION = (JSON.parse(readFileSync(join(PLUGIN, ".claude-plugin/plugin.json"), "utf8")) as { version: string }).version;
const IMPLEMENTATION_TASKS = ["demo-clamp", "demo-ledger-rounding", "demo-ledger-currency"];
const REVIEW_TASKS = ["demo-review-median", "demo-review-split", "demo-review-variance"];
const IMPLEMENTATION_ARMS = ["workflow", "workflow_direct", "baseline", "baseline_nomcp", "ce_workflow", "ce_workflow_direct"];
const REVIEW_ARMS = ["review", "ce_review"];
const CE_ARMS = ["ce_workflow", "ce_workflow_direct", "ce_review"];
/** Each CE arm and the MCP-free baseline play their counterpart's sessions, so their verdicts must be the counterpart's. */
const COUNTERPART: Record<string, string> = { ce_workflow: "workflow", ce_workflow_direct: "workflow_direct", ce_review: "review", baseline_nomcp: "baseline" };
const VERDICT = ["ok", "resolved", "authored_tests_passed", "oracle_passed", "error_kind", "skill_invoked"] as const;

type Row = Record<string, unknown> & { arm: string; task: string; transcript_artifacts: { path: string }[] };

const base = mkdtempSync(join(tmpdir(), "wfbench-demo-all-arms-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the demo suite with every arm", () => {
  const out = join(base, "all");
  let result: RunnerResult = { code: null, stdout: "", stderr: "" };
  let rows: Row[] = [];
  const rowOf = (task: string, arm: string): Row => rows.find((row) => row.task === task && row.arm === arm) ?? ({} as Row);

  beforeAll(async () => {
    if (tools.skip) return;
    result = await runRunner(["--out", out, "--repeats", "1", "--workers", "2", "--arms", ...IMPLEMENTATION_ARMS, ...REVIEW_ARMS, "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", VERSION]);
    if (result.code !== 0) throw new Error(`runner exit ${String(result.code)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
    rows = readResultRows(out) as Row[];
  }, 300_000);

  it.skipIf(tools.skip)("give every arm one row on each task of its kind, and none on the other kind", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    const cells = rows.map((row) => `${row.task}/${row.arm}`).sort();
    const expected = [
      ...IMPLEMENTATION_TASKS.flatMap((task) => IMPLEMENTATION_ARMS.map((arm) => `${task}/${arm}`)),
      ...REVIEW_TASKS.flatMap((task) => REVIEW_ARMS.map((arm) => `${task}/${arm}`)),
    ].sort();
    expect(cells).toEqual(expected);
    for (const row of rows) expect(row["sandbox_backend"], `${row.task}/${row.arm}`).toBe("bwrap");
  });

  it.skipIf(tools.skip)("reach each counterpart's verdict in the CE arms and the MCP-free baseline", () => {
    for (const [arm, counterpart] of Object.entries(COUNTERPART)) {
      const tasks = arm === "ce_review" ? REVIEW_TASKS : IMPLEMENTATION_TASKS;
      for (const task of tasks) {
        const pick = (row: Row): Record<string, unknown> => Object.fromEntries(VERDICT.map((key) => [key, row[key]]));
        expect(pick(rowOf(task, arm)), `${task}/${arm}`).toEqual(pick(rowOf(task, counterpart)));
      }
    }
    // The scripted outcomes the demo pins, seen through the CE arms.
    expect(rowOf("demo-clamp", "ce_workflow")).toMatchObject({ resolved: true, skill_invoked: true });
    expect(rowOf("demo-ledger-currency", "ce_workflow_direct")).toMatchObject({ resolved: false, error_kind: "oracle-failed" });
    for (const task of REVIEW_TASKS) expect(rowOf(task, "ce_review"), task).toMatchObject({ resolved: true, review_evidence_valid: true });
  });

  it.skipIf(tools.skip)("record the plugin version and manifest digest in every CE row, and in no other", () => {
    const digests = new Set<unknown>();
    for (const row of rows) {
      if (CE_ARMS.includes(row.arm)) {
        expect(row, `${row.task}/${row.arm}`).toMatchObject({ ce_plugin_version: VERSION, ce_plugin_manifest_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
        digests.add(row["ce_plugin_manifest_digest"]);
      } else {
        expect(row["ce_plugin_version"], `${row.task}/${row.arm}`).toBeUndefined();
      }
    }
    expect(digests.size).toBe(1);
  });

  it.skipIf(tools.skip)("offer and use no MCP tool in baseline_nomcp (rows and the stored init event)", () => {
    for (const task of IMPLEMENTATION_TASKS) {
      const row = rowOf(task, "baseline_nomcp");
      const uses = row["mcp_tool_uses"] as Record<string, number> | null | undefined;
      expect(Object.values(uses ?? {}).reduce((sum, count) => sum + count, 0), task).toBe(0);
      const transcript = readFileSync(join(out, row.transcript_artifacts[0]?.path ?? ""), "utf8");
      const events = transcript.trimEnd().split("\n").map((line) => JSON.parse(line) as { type?: string; subtype?: string; tools?: string[]; mcp_servers?: unknown[] });
      const init = events.find((event) => event.type === "system" && event.subtype === "init");
      expect(init, task).toBeDefined();
      if (init === undefined) return;
      expect(init.tools?.filter((tool) => tool.startsWith("mcp__")), task).toEqual([]);
      expect(init.mcp_servers ?? [], task).toEqual([]);
    }
    // The sessions were told no MCP tool exists: the scripted model matched its nomcp rules on that note.
    const played = new Set(readFileSync(join(out, "scripted-model-requests.jsonl"), "utf8").trimEnd().split("\n").map((line) => String((JSON.parse(line) as { trajectory: unknown }).trajectory)));
    for (const name of ["nomcp-demo-clamp-baseline", "nomcp-demo-rounding-baseline", "nomcp-demo-currency-baseline"]) expect(played.has(name), name).toBe(true);
  });

  it.skipIf(tools.skip)("use the demo MCP server in the workflow arms, keep its tools in baseline, and count per server", () => {
    const initTools = (row: Row): string[] => {
      const events = readFileSync(join(out, row.transcript_artifacts[0]?.path ?? ""), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { type?: string; subtype?: string; tools?: string[] });
      return events.find((event) => event.type === "system" && event.subtype === "init")?.tools ?? [];
    };
    for (const arm of ["workflow", "ce_workflow"]) {
      expect(rowOf("demo-ledger-currency", arm)["mcp_tool_uses"], arm).toEqual({ "wfbench-demo": 2 });
      expect(rowOf("demo-ledger-rounding", arm)["mcp_tool_uses"], arm).toEqual({ "wfbench-demo": 1 });
      const transcript = readFileSync(join(out, rowOf("demo-ledger-currency", arm).transcript_artifacts[0]?.path ?? ""), "utf8");
      // The impact tool's real answer over the workspace, not an error: the CE replay is served like its counterpart.
      expect(transcript, arm).toContain("tests to re-run: test/currency.test.mjs test/report.test.mjs");
    }
    // baseline keeps the MCP tools (it loses only skills) and does not call them; baseline_nomcp has none (above).
    for (const task of IMPLEMENTATION_TASKS) {
      expect(initTools(rowOf(task, "baseline")), task).toEqual(expect.arrayContaining(["mcp__wfbench-demo__find_references", "mcp__wfbench-demo__impact"]));
      expect(rowOf(task, "baseline")["mcp_tool_uses"], task).toEqual({ "wfbench-demo": 0 });
      expect(rowOf(task, "baseline_nomcp")["mcp_tool_uses"], task).toEqual({ "wfbench-demo": 0 });
    }
    const total = (arm: string): number => rows.filter((row) => row.arm === arm).reduce((sum, row) => sum + ((row["mcp_tool_uses"] as Record<string, number> | null)?.["wfbench-demo"] ?? 0), 0);
    expect(total("workflow")).toBeGreaterThan(0);
    expect(total("baseline_nomcp")).toBe(0);
  });

  it.skipIf(tools.skip)("invoke the plugin's namespaced skills in the CE sessions", () => {
    const first = (task: string, arm: string, index = 0): string => readFileSync(join(out, rowOf(task, arm).transcript_artifacts[index]?.path ?? ""), "utf8");
    expect(first("demo-clamp", "ce_workflow", 0)).toContain('"skill":"compound-engineering:ce-plan"');
    expect(first("demo-clamp", "ce_workflow", 1)).toContain('"skill":"compound-engineering:ce-work"');
    expect(first("demo-review-median", "ce_review")).toContain("Base directory for this skill: /opt/compound-engineering-plugin/skills/ce-code-review");
  });
});
