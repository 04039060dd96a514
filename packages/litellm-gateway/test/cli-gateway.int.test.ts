// End to end: the real Claude Code CLI → the gateway's Unix socket → the scripted model.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveClaudeCli, type ResolvedClaudeCli } from "@wfbench/claude-cli";
import { loadScript, startScriptedModel } from "@wfbench/scripted-model";
import type { Script, ScriptedModelServer } from "@wfbench/scripted-model";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildCliGatewayEnv } from "../src/build-cli-gateway-env.js";
import { emptyUsage } from "../src/extract-usage.js";
import type { WireUsage } from "../src/schema.js";
import { startGateway } from "../src/start-gateway.js";
import type { Gateway } from "../src/start-gateway.js";
import { readUsageLog } from "../src/usage-log.js";

const SCRIPT_PATH = fileURLToPath(new URL("./fixtures/cli-e2e/script.yaml", import.meta.url));
const REAL_KEY = "sk-ant-api03-REAL-UPSTREAM-KEY-never-leaves-the-host-0000";
const MODEL = "claude-sonnet-4-5";
const CLI_TIMEOUT_MS = 90_000;

const required = process.env["CI"] === "true";
const cli = await resolveClaudeCli().then(
  (value) => ({ ok: true as const, value }),
  (error: unknown) => ({ ok: false as const, error }),
);
if (!cli.ok && !required) {
  process.stderr.write(`cli-gateway.int.test.ts skipped (set CI=true to make this a failure): ${String(cli.error)}\n`);
}
const loaded = await loadScript(SCRIPT_PATH);
if (!loaded.ok) throw new Error(`${SCRIPT_PATH}: ${JSON.stringify(loaded.error).slice(0, 500)}`);
const script: Script = loaded.value;

function requireCli(): ResolvedClaudeCli {
  if (!cli.ok) throw cli.error;
  return cli.value;
}

interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  events: Array<Record<string, unknown>>;
  argv: string[];
  env: Record<string, string>;
}

/** What a CLI run's stream accounts for: its assistant message ids and the tokens of its result's modelUsage. */
function streamAccounting(run: CliRun): { messageIds: string[]; reportedTokens: number } {
  const messageIds = run.events.flatMap((e) => {
    const message = e["message"] as { id?: unknown } | undefined;
    return e["type"] === "assistant" && typeof message?.id === "string" ? [message.id] : [];
  });
  const models = (run.events.find((e) => e["type"] === "result")?.["modelUsage"] ?? {}) as Record<string, Record<string, number>>;
  const reportedTokens = Object.values(models).reduce((sum, m) => sum + (m["inputTokens"] ?? 0) + (m["outputTokens"] ?? 0) + (m["cacheReadInputTokens"] ?? 0) + (m["cacheCreationInputTokens"] ?? 0), 0);
  return { messageIds, reportedTokens };
}

function runCli(binary: string, prompt: string, env: Record<string, string>, cwd: string, tools = "Bash,Read"): Promise<CliRun> {
  const argv = [
    "-p", prompt,
    "--output-format", "stream-json", "--verbose",
    "--model", MODEL,
    "--setting-sources", "project",
    "--tools", tools,
    "--permission-mode", "dontAsk",
    "--allowedTools", tools,
    "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}',
    "--max-turns", "4",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      const events = stdout.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ exitCode, stdout, stderr, events, argv, env });
    });
  });
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

describe.skipIf(!cli.ok && !required)("real Claude Code CLI through the gateway", () => {
  let root = "";
  let scripted: ScriptedModelServer | null = null;
  let gateway: Gateway | null = null;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "wfgw-e2e-"));
    await mkdir(join(root, "work"));
    await mkdir(join(root, "home"));
    scripted = await startScriptedModel({ script, listen: { socketPath: join(root, "model.sock") }, requestLogPath: join(root, "model-requests.jsonl") });
    gateway = await startGateway({
      listen: { socketPath: join(root, "gateway.sock") },
      upstream: { kind: "scripted", baseUrl: scripted.baseUrl, socketPath: join(root, "model.sock"), apiKey: REAL_KEY },
      usageLogPath: join(root, "gateway-usage.jsonl"),
    });
  });

  afterEach(async () => {
    await gateway?.close();
    await scripted?.close();
    await rm(root, { recursive: true, force: true });
  });

  function cliEnv(token: string, configDir: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: join(root, "home"),
      CLAUDE_CONFIG_DIR: configDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_MAX_RETRIES: "2",
      ...buildCliGatewayEnv({ model: MODEL, token, socketPath: join(root, "gateway.sock") }),
      ...extra,
    };
  }

  it("meters every request, the retried one included, with exactly the scripted usage", async () => {
    const binary = requireCli();
    const live = gateway;
    const model = scripted;
    if (live === null || model === null) throw new Error("setup failed");
    const token = live.mintCellToken("cell-e2e");
    const configDir = join(root, "config-e2e");
    const run = await runCli(binary.path, "Run the marker command. GW-E2E-TOOL", cliEnv(token, configDir), join(root, "work"));
    live.revokeCell("cell-e2e");
    expect(run.exitCode, run.stderr.slice(0, 2000)).toBe(0);
    const result = run.events.find((e) => e["type"] === "result");
    expect(result?.["is_error"]).toBe(false);
    expect(result?.["result"]).toBe("gateway e2e done");
    expect(run.events.some((e) => e["type"] === "system" && e["subtype"] === "api_retry")).toBe(true);

    await live.flush();
    const rows = (await readUsageLog(join(root, "gateway-usage.jsonl"))).filter((r) => r.cell_id === "cell-e2e");
    const trajectory = script.trajectories.find((t) => t.name === "tool-then-answer");
    // What the scripted model says it served, request by request, is what the usage log must hold.
    const expected = model.requests.map((entry): [number, WireUsage] => {
      const turn = entry.turn === null ? undefined : trajectory?.turns[entry.turn];
      if (entry.outcome.kind !== "reply" || turn === undefined) return [entry.outcome.status, emptyUsage()];
      return [entry.outcome.status, { ...turn.usage }];
    });
    expect(expected.map(([status]) => status)).toEqual([529, 200, 200]);
    expect(rows.map((r) => [r.http_status, r.usage])).toEqual(expected);
    expect(rows.map((r) => [r.outcome, r.attempt, r.sse_conformant])).toEqual([
      ["http_error", 1, null],
      ["ok", 2, true],
      ["ok", 1, true],
    ]);
    expect(rows[1]?.retry_of).toBe(rows[0]?.gateway_request_id);
    expect(rows.every((r) => r.model_requested === MODEL && r.upstream === "scripted")).toBe(true);
    expect(rows.slice(1).every((r) => r.cost_usd !== null && r.cost_usd > 0)).toBe(true);

    const summary = live.summarizeCell("cell-e2e");
    const sum = (f: keyof WireUsage): number => expected.reduce((acc, [, u]) => acc + (u[f] ?? 0), 0);
    expect(summary).toMatchObject({
      requests: 3,
      failedRequests: 1,
      retriedRequests: 1,
      inputTokens: sum("input_tokens"),
      outputTokens: sum("output_tokens"),
      cacheReadInputTokens: sum("cache_read_input_tokens"),
      cacheCreationInputTokens: sum("cache_creation_input_tokens"),
      complete: true,
    });
    // Measured: the stream shows the message of every answered request (the 529 began none), so nothing is unaccounted.
    expect(rows.map((r) => r.message_id === null)).toEqual([true, false, false]);
    expect(rows.slice(1).every((r) => r.message_id !== null && streamAccounting(run).messageIds.includes(r.message_id))).toBe(true);
    expect(live.summarizeCell("cell-e2e", streamAccounting(run))).toMatchObject({ unaccountedRequests: 0, unaccountedCostUsd: 0 });

    // The real key stays in the host process: not in the CLI's env or argv, its output, its config dir
    // (transcripts, state), the work dir, or the gateway's usage log.
    expect(JSON.stringify(run.env)).not.toContain(REAL_KEY);
    expect(run.argv.join(" ")).not.toContain(REAL_KEY);
    expect(run.env["ANTHROPIC_API_KEY"]).toBe(token);
    expect(run.stdout + run.stderr).not.toContain(REAL_KEY);
    const files = [...(await filesUnder(configDir)), ...(await filesUnder(join(root, "work"))), join(root, "gateway-usage.jsonl")];
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      if ((await stat(file)).size > 50 * 1024 * 1024) continue;
      expect(await readFile(file, "utf8"), file).not.toContain(REAL_KEY);
    }
  });

  it("meters a subagent's requests to the same cell", async () => {
    const binary = requireCli();
    const live = gateway;
    const model = scripted;
    if (live === null || model === null) throw new Error("setup failed");
    const token = live.mintCellToken("cell-sub");
    const run = await runCli(binary.path, "Delegate this. GW-E2E-DELEGATE", cliEnv(token, join(root, "config-sub")), join(root, "work"), "Bash,Read,Agent");
    expect(run.exitCode, run.stderr.slice(0, 2000) + run.stdout.slice(-3000)).toBe(0);
    expect(run.events.find((e) => e["type"] === "result")?.["result"]).toBe("delegation done");
    await live.flush();
    const rows = (await readUsageLog(join(root, "gateway-usage.jsonl"))).filter((r) => r.cell_id === "cell-sub");
    const usageOf = (name: string, turn: number): WireUsage => {
      const found = script.trajectories.find((t) => t.name === name)?.turns[turn]?.usage;
      if (found === undefined) throw new Error(`no ${name}[${turn}]`);
      return { ...found };
    };
    expect(model.requests.map((e) => [e.trajectory, e.turn])).toEqual([["delegate", 0], ["child", 0], ["delegate", 1]]);
    expect(rows.map((r) => r.usage)).toEqual([usageOf("delegate", 0), usageOf("child", 0), usageOf("delegate", 1)]);
    // The subagent ran on the pinned session model, not an Anthropic-named tier model.
    expect(rows.every((r) => r.model_requested === MODEL)).toBe(true);
    const summary = live.summarizeCell("cell-sub");
    expect(summary).toMatchObject({ requests: 3, failedRequests: 0, complete: true });
    // Measured on 2.1.332: the subagent's assistant message never appears in the parent's stream (only its prompt, as a
    // user event, and a task_notification), but result.modelUsage counts its tokens, which is what covers it.
    const stream = streamAccounting(run);
    expect(rows.map((r) => r.message_id !== null && stream.messageIds.includes(r.message_id))).toEqual([true, false, true]);
    expect(stream.reportedTokens).toBe(rows.reduce((n, r) => n + (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0) + (r.usage.cache_read_input_tokens ?? 0) + (r.usage.cache_creation_input_tokens ?? 0), 0));
    expect(live.summarizeCell("cell-sub", stream).unaccountedRequests).toBe(0);
    // A request the CLI never made, shaped exactly like the subagent's (same prompt, so the same usage): the reported
    // tokens cover one of the two, never both, so exactly one is flagged.
    const dispatcher = new Agent({ connect: { socketPath: join(root, "gateway.sock") } });
    const side = await request("http://localhost/v1/messages", {
      method: "POST",
      dispatcher,
      headers: { "x-api-key": token, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "Reply with one word. GW-E2E-CHILD" }] }),
    });
    await side.body.text();
    await dispatcher.close();
    expect(side.statusCode).toBe(200);
    await live.flush();
    const after = live.summarizeCell("cell-sub", stream);
    expect(after.requests).toBe(4);
    expect(after.unaccountedRequests).toBe(1);
    expect(after.unaccountedCostUsd).toBeGreaterThan(0);
    // The CLI's own usage is main-loop only; the gateway's total adds exactly the subagent's request.
    const cliUsage = run.events.find((e) => e["type"] === "result")?.["usage"] as Record<string, number> | undefined;
    const child = usageOf("child", 0);
    expect(summary.inputTokens).toBe((cliUsage?.["input_tokens"] ?? Number.NaN) + (child.input_tokens ?? Number.NaN));
    expect(summary.outputTokens).toBe((cliUsage?.["output_tokens"] ?? Number.NaN) + (child.output_tokens ?? Number.NaN));
  });

  it("flags an upstream stream that drops content_block_stop, while the CLI recovers", async () => {
    const binary = requireCli();
    const live = gateway;
    if (live === null || scripted === null) throw new Error("setup failed");
    const token = live.mintCellToken("cell-broken");
    const run = await runCli(binary.path, "Say something. GW-E2E-BROKEN", cliEnv(token, join(root, "config-broken")), join(root, "work"));
    expect(run.exitCode, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.events.find((e) => e["type"] === "result")?.["result"]).toBe("second attempt is whole");
    await live.flush();
    const rows = (await readUsageLog(join(root, "gateway-usage.jsonl"))).filter((r) => r.cell_id === "cell-broken");
    expect(scripted.requests.map((e) => e.outcome.kind)).toEqual(["omit_content_block_stop", "reply"]);
    expect(rows.map((r) => r.sse_conformant)).toEqual([false, true]);
    expect(rows[0]?.sse_violations.join("\n")).toMatch(/is open/);
    // The discarded broken stream is the upstream's fault: never counted as unaccounted spend.
    expect(live.summarizeCell("cell-broken", streamAccounting(run)).unaccountedRequests).toBe(0);
  });

  it("refuses a token of a cell that already ended, so the model is never asked", async () => {
    const binary = requireCli();
    const live = gateway;
    if (live === null || scripted === null) throw new Error("setup failed");
    const stale = live.mintCellToken("cell-finished");
    live.revokeCell("cell-finished");
    live.mintCellToken("cell-running");
    const run = await runCli(
      binary.path,
      "Say hi. GW-E2E-REFUSED",
      cliEnv(stale, join(root, "config-refused"), { CLAUDE_CODE_MAX_RETRIES: "1" }),
      join(root, "work"),
    );
    expect(run.exitCode).not.toBe(0);
    const result = run.events.find((e) => e["type"] === "result");
    expect(result?.["is_error"]).toBe(true);
    expect(scripted.requests).toHaveLength(0);
    await live.flush();
    const rows = await readUsageLog(join(root, "gateway-usage.jsonl"));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.outcome === "unauthorized" && r.http_status === 401 && r.cell_id === null)).toBe(true);
    expect(live.summarizeCell("cell-finished").requests).toBe(0);
  });
});
