// Spend outside the CLI, as the cell sees it: a workflow_direct cell of the demo task whose (scripted) session solves
// the task, so verify and the hidden oracle pass for real (bwrap, git, the demo oracle). The gateway is a stand-in
// that records what the cell hands it and answers with a wire summary; with one request the CLI's stream does not
// account for, the otherwise resolved row must be evidence-unverified and carry the wire figures. The matching rule
// itself runs against the real CLI in litellm-gateway's cli-gateway.int.test.ts; this proves the cell's wiring.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stageExecOnlyBinary } from "@wfbench/claude-cli";
import { createHostGitRunner, createTemplateCache, type Template } from "@wfbench/clone-sanitizer";
import type { CellUsageSummary, StreamAccounting } from "@wfbench/litellm-gateway";
import { captureOracle, type OracleSnapshot } from "@wfbench/oracle-snapshot";
import type { SandboxPolicyInput, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { createTaskSourceResolver, loadTaskSuite, type ResolvedSource, type SuiteSkills, type Task } from "@wfbench/task-suite";
import { renderShellPrefix } from "../src/build-sandbox-env.js";
import { runCell, type CellGateway, type RunCellInput } from "../src/run-cell.js";
import type { SessionSandbox } from "../src/run-session.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");
const TOKEN = "wfb-cell-token-unaccounted-5e2a";
const CLAMP = `\nexport function clamp(value, min, max) {\n  if (min > max) throw new RangeError("empty range");\n  return Math.min(Math.max(value, min), max);\n}\n`;

function workCapture(): Buffer {
  const session = "sess-work-1";
  const events = [
    { type: "system", subtype: "init", session_id: session, skills: ["demo-plan", "demo-work"] },
    { type: "assistant", message: { id: "msg_cli_1", role: "assistant", content: [{ type: "tool_use", id: "toolu_w1", name: "Skill", input: { skill: "demo-work" } }] }, parent_tool_use_id: null, session_id: session },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_w1", content: "loaded" }] }, parent_tool_use_id: null, session_id: session },
    { type: "assistant", message: { id: "msg_cli_2", role: "assistant", content: [{ type: "text", text: "clamp added" }] }, parent_tool_use_id: null, session_id: session },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      session_id: session,
      num_turns: 2,
      duration_ms: 1500,
      total_cost_usd: 0.01,
      usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
      modelUsage: { "claude-sonnet-4-5": { costBasis: "list", costUSD: 0.01, inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 } },
    },
  ];
  return Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(""), "utf8");
}

/** Plays the work session: writes the correct clamp into the clone, as the model would, and returns its capture. */
const solvingSandbox: SessionSandbox = async (policy) => {
  const workspace = (policy as SandboxPolicyInput).workspace?.hostPath;
  if (workspace === undefined) throw new Error("session without a workspace");
  writeFileSync(join(workspace, "src/math.js"), `${readFileSync(join(workspace, "src/math.js"), "utf8")}${CLAMP}`);
  const result: SandboxRunResult = { backend: "bwrap", state: "exited", ok: true, exitCode: 0, signal: null, stdout: workCapture(), stdoutOverflow: false, stderrTail: "", durationMs: 1600, setupError: null };
  return result;
};

function wireSummary(cellId: string, unaccounted: number): CellUsageSummary {
  return { cellId, requests: 2 + unaccounted, failedRequests: 0, upstreamFailedRequests: 0, abortedRequests: 0, retriedRequests: 0, nonConformantStreams: 0, inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, wireTokens: 120, costUsd: 0.01 + 0.45 * unaccounted, complete: true, priceTables: ["t"], unaccountedRequests: unaccounted, unaccountedCostUsd: 0.45 * unaccounted, unaccountedMessageIds: unaccounted > 0 ? ["msg_side"] : [] };
}

const base = mkdtempSync(join(tmpdir(), "cell-unaccounted-"));
let task: Task;
let skills: SuiteSkills;
let source: ResolvedSource;
let template: Template;
let oracle: OracleSnapshot;
let claudePath: string;
let shellPrefixPath: string;
let shellPath: string;
let disposeTemplates: (() => Promise<void>) | null = null;
let disposeGit: (() => void) | null = null;

beforeAll(async () => {
  if (!hasBwrap && !required) return;
  const suite = await loadTaskSuite(join(ROOT, "tasks/demo.yaml"), { homeDir: null });
  if (!suite.ok) throw new Error(suite.error.message);
  const found = suite.value.tasks.find((t) => t.id === "demo-clamp");
  if (found === undefined) throw new Error("demo-clamp is missing from tasks/demo.yaml");
  task = found;
  skills = suite.value.skills;
  const captured = await captureOracle(task.oracle, join(ROOT, "oracles"));
  if (!captured.ok) throw new Error(captured.error.message);
  oracle = captured.value;
  const git = createHostGitRunner();
  disposeGit = () => git.dispose();
  const resolved = await createTaskSourceResolver({ git, workDir: join(base, "sources") }).resolve(task);
  if (!resolved.ok) throw new Error(resolved.error.message);
  source = resolved.value;
  mkdirSync(join(base, "templates"));
  const templates = createTemplateCache({ runner: git, parentDir: join(base, "templates") });
  disposeTemplates = () => templates.dispose();
  const acquired = await templates.acquire({ repo: source.repo, sha: source.sha, hiddenPaths: [], neutralize: [] });
  if (!acquired.ok) throw new Error(acquired.error.message);
  template = acquired.value;
  mkdirSync(join(base, "runtime"), { mode: 0o700 });
  claudePath = await stageExecOnlyBinary("/bin/true", join(base, "runtime/claude"));
  shellPrefixPath = join(base, "runtime/shell-prefix");
  shellPath = await stageExecOnlyBinary("/bin/true", join(base, "runtime/bash"));
  writeFileSync(shellPrefixPath, renderShellPrefix(), { mode: 0o500 });
}, 60_000);

afterAll(async () => {
  await disposeTemplates?.();
  disposeGit?.();
  rmSync(base, { recursive: true, force: true });
});

function cellInput(name: string, unaccounted: number, seen: StreamAccounting[]): RunCellInput {
  const outDir = join(base, name, "out");
  const workDir = join(base, name, "work");
  mkdirSync(join(outDir, "transcripts"), { recursive: true, mode: 0o700 });
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const gateway: CellGateway = {
    hostSocketPath: join(base, "gateway.sock"),
    mintCellToken: () => TOKEN,
    revokeCell: () => 1,
    summarizeCell: (cellId, stream) => {
      if (stream !== undefined) seen.push({ messageIds: [...stream.messageIds], reportedTokens: stream.reportedTokens });
      return wireSummary(cellId, unaccounted);
    },
    flush: async () => undefined,
  };
  return { task, arm: "workflow_direct", run: 0, skills, source, template, oracle, model: "claude-sonnet-4-5", effort: "xhigh", proposerModel: null, claudePath, shellPrefixPath, shellPath, gateway, upstream: "scripted", workDir, outDir, timeoutMs: 60_000, sessionSandbox: solvingSandbox };
}

describe.skipIf(!hasBwrap && !required)("a cell whose token was spent outside its CLI", () => {
  it("hands the gateway its stream's message ids and modelUsage tokens, and resolves when everything is accounted for", async () => {
    const seen: StreamAccounting[] = [];
    const row = await runCell(cellInput("clean", 0, seen));
    expect(seen).toEqual([{ messageIds: ["msg_cli_1", "msg_cli_2"], reportedTokens: 120 }]);
    expect(row).toMatchObject({ ok: true, resolved: true, error_kind: null, oracle_passed: true, wire_unaccounted_requests: 0, wire_unaccounted_cost_usd: 0, wire_cost_usd: 0.01, cost_usd: 0.01 });
  }, 60_000);

  it("turns the otherwise resolved row evidence-unverified, keeping the wire cost of record and the CLI's beside it", async () => {
    const row = await runCell(cellInput("leaky", 1, []));
    expect(row).toMatchObject({ ok: false, resolved: false, error_kind: "evidence-unverified", oracle_passed: true, authored_tests_passed: true, wire_unaccounted_requests: 1, wire_unaccounted_cost_usd: 0.45, cost_usd: 0.01 });
    expect(row.wire_cost_usd).toBeCloseTo(0.46, 12);
    expect(row.error_detail).toBe("unaccounted spend: 1 gateway request(s) of the cell's token ($0.450000) that no CLI stream of the cell accounts for");
  }, 60_000);
});
