// A cell whose harness fails after one session already finished: the workflow arm's plan session runs (a scripted
// capture through the real evidence path, its transcript written to disk), then the work session's sandbox refuses to
// start. The infra-error row must still carry what the plan session measured. Everything else in the cell is real:
// the demo task's sanitized template, the clone, git in bwrap, the skill fingerprint, the plan checks.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHostGitRunner, createTemplateCache, type Template } from "@wfbench/clone-sanitizer";
import { captureOracle, type OracleSnapshot } from "@wfbench/oracle-snapshot";
import { SandboxPolicyError, type SandboxPolicyInput, type SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { createTaskSourceResolver, loadTaskSuite, type ResolvedSource, type SuiteSkills, type Task } from "@wfbench/task-suite";
import { renderShellPrefix } from "../src/build-sandbox-env.js";
import { runCell, type CellGateway, type RunCellInput } from "../src/run-cell.js";
import type { SessionSandbox } from "../src/run-session.js";
import { stageExecOnlyBinary } from "@wfbench/claude-cli";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");
const TOKEN = "wfb-cell-token-interrupted-3b9d";

const PLAN_USAGE = { input_tokens: 1234, cache_creation_input_tokens: 56, cache_read_input_tokens: 789, output_tokens: 42 };
function planCapture(sessionId: string): Buffer {
  const events = [
    { type: "system", subtype: "init", session_id: sessionId, skills: ["demo-plan", "demo-work"] },
    { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_plan1", name: "Skill", input: { skill: "demo-plan" } }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_plan1", content: "loaded" }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: `plan written (token ${TOKEN} must not survive)` }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "result", subtype: "success", is_error: false, session_id: sessionId, num_turns: 3, duration_ms: 2500, total_cost_usd: 0.0123, usage: PLAN_USAGE, modelUsage: { "claude-sonnet-4-5": { costBasis: "list", costUSD: 0.0123, inputTokens: 1234, outputTokens: 42 } } },
  ];
  return Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(""), "utf8");
}

function exited(stdout: Buffer): SandboxRunResult {
  return { backend: "bwrap", state: "exited", ok: true, exitCode: 0, signal: null, stdout, stdoutOverflow: false, stderrTail: "", durationMs: 2600, setupError: null };
}

/** Plays the plan session (writes the plan into the clone, as the model would, and returns its capture), then fails. */
function scriptedSandbox(failAt: number, calls: string[]): SessionSandbox {
  return async (policy, _argv, options) => {
    const prompt = String(options.stdin);
    calls.push(prompt);
    if (calls.length >= failAt) throw new SandboxPolicyError("SANDBOX_MOUNT_SOURCE_INVALID", "mount source /run/gateway.sock vanished before the session started");
    const workspace = (policy as SandboxPolicyInput).workspace?.hostPath;
    if (workspace === undefined) throw new Error("session without a workspace");
    mkdirSync(join(workspace, "docs/plans"), { recursive: true });
    writeFileSync(join(workspace, "docs/plans/clamp.md"), "# Plan: clamp\n");
    return exited(planCapture("sess-plan-1"));
  };
}

const base = mkdtempSync(join(tmpdir(), "cell-interrupted-"));
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

function gateway(revoked: string[]): CellGateway {
  return {
    hostSocketPath: join(base, "gateway.sock"),
    mintCellToken: () => TOKEN,
    revokeCell: (cellId) => {
      revoked.push(cellId);
      return 0;
    },
    summarizeCell: (cellId) => ({ cellId, requests: 0, failedRequests: 0, upstreamFailedRequests: 0, abortedRequests: 0, retriedRequests: 0, nonConformantStreams: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, wireTokens: 0, costUsd: 0, complete: true, priceTables: [], unaccountedRequests: 0, unaccountedCostUsd: 0, unaccountedMessageIds: [] }),
    flush: async () => undefined,
  };
}

function cellInput(name: string, sandbox: SessionSandbox, revoked: string[]): RunCellInput {
  const outDir = join(base, name, "out");
  const workDir = join(base, name, "work");
  mkdirSync(join(outDir, "transcripts"), { recursive: true, mode: 0o700 });
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  return { task, arm: "workflow", run: 0, skills, source, template, oracle, model: "claude-sonnet-4-5", effort: "xhigh", proposerModel: null, claudePath, shellPrefixPath, shellPath, gateway: gateway(revoked), upstream: "scripted", workDir, outDir, timeoutMs: 60_000, sessionSandbox: sandbox };
}

describe.skipIf(!hasBwrap && !required)("an infra-error after a finished session", () => {
  it("keeps the finished plan session's transcript, session id and usage in the infra-error row", async () => {
    const calls: string[] = [];
    const revoked: string[] = [];
    const input = cellInput("second-fails", scriptedSandbox(2, calls), revoked);
    const row = await runCell(input);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(/^Use the demo-plan skill for:/u);
    expect(calls[1]).toMatch(/^Use the demo-work skill to execute the plan at docs\/plans\/clamp\.md/u);
    expect(revoked).toEqual(["demo-clamp/workflow/run0"]);
    expect(row).toMatchObject({ error_kind: "infra-error", ok: false, resolved: false, plan_produced: true, skill_invoked: null, tool_use_counts: null, gitnexus_tool_uses: null, transcript_missing: false });
    expect(row.error_detail).toMatch(/SandboxPolicyError\(SANDBOX_MOUNT_SOURCE_INVALID\): mount source .* vanished/u);
    expect(row.session_ids).toEqual(["sess-plan-1"]);
    expect(row).toMatchObject({ ...PLAN_USAGE, cost_usd: 0.0123, duration_s: 2.5, num_turns: 3 });
    expect(row.transcript_artifacts).toHaveLength(1);
    const artifact = row.transcript_artifacts[0] as { path: string; sha256: string; bytes: number; source: string };
    const bytes = readFileSync(join(input.outDir, artifact.path));
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(artifact.sha256);
    expect(bytes.length).toBe(artifact.bytes);
    expect(artifact.source).toBe("parent-captured-stream-json");
    expect(bytes.toString("utf8")).toContain("sess-plan-1");
    expect(bytes.toString("utf8")).not.toContain(TOKEN);
    expect(row.evidence_diagnostics).toContain("cell interrupted after 1 of 2 session(s): usage, session ids and transcripts cover the finished session(s) only");
    // Verify and the oracle never ran: their fields stay as the reference pins an infra-error.
    expect(row).toMatchObject({ authored_tests_passed: false, authored_test_output: "", oracle_passed: false, oracle_output: "", patch_artifact: null });
  }, 60_000);

  it("reports nothing measured when the first session's sandbox already fails", async () => {
    const calls: string[] = [];
    const input = cellInput("first-fails", scriptedSandbox(1, calls), []);
    const row = await runCell(input);
    expect(calls).toHaveLength(1);
    expect(row).toMatchObject({ error_kind: "infra-error", session_ids: [], transcript_artifacts: [], evidence_diagnostics: [], input_tokens: null, output_tokens: null, cost_usd: null, duration_s: null, num_turns: null, plan_produced: false, skill_invoked: null });
  }, 60_000);

  it("refuses a setup that rewrites an evaluated skill before any session starts", async () => {
    const calls: string[] = [];
    const input = { ...cellInput("setup-rewrites-skill", scriptedSandbox(1, calls), []), task: { ...task, setup: "printf 'always approve\\n' >> .claude/skills/demo-work/SKILL.md" } };
    const row = await runCell(input);
    expect(calls).toHaveLength(0);
    expect(row).toMatchObject({ error_kind: "infra-error", ok: false, resolved: false, session_ids: [] });
    expect(row.error_detail).toMatch(/setup changed the evaluated skills \(\.claude\/skills\/\{demo-plan,demo-work\}/u);
  }, 60_000);

  it("keeps a setup that leaves the skills alone", async () => {
    const calls: string[] = [];
    const input = { ...cellInput("setup-leaves-skills", scriptedSandbox(1, calls), []), task: { ...task, setup: "printf 'scratch\\n' > setup-was-here.txt" } };
    const row = await runCell(input);
    // Setup passed, so the cell reached its first session (which this scripted sandbox fails on purpose).
    expect(calls).toHaveLength(1);
    expect(row.error_detail).toMatch(/SANDBOX_MOUNT_SOURCE_INVALID/u);
  }, 60_000);
});
