// Issue 13, class 1 through the whole runner: the agent rewrites the workspace's Claude Code settings to get the cell
// token into its own processes. One workflow cell plants an `env` that swaps CLAUDE_CODE_SHELL_PREFIX for a
// pass-through wrapper (the CLI hot-reloads project settings, so it would apply to the same session's next Bash call),
// the other an `apiKeyHelper` the work session's CLI would run at start-up with its full environment. Both then spend
// the token on /run/gateway.sock. Reproduced before the fix (token length 55 in the tool output, two paid side requests
// of $0.45 each in the gateway log, the raw token in both patches); judged here from host evidence only: the gateway
// usage log, the scripted model's request log, the rows, the patches and the parent-captured transcripts.
import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/settings-hijack", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
const TOKEN_PATTERN = /sk-wfb-[0-9a-f]{48}/u;

interface UsageRow {
  cell_id: string | null;
  outcome: string;
  http_status: number | null;
  message_id: string | null;
}
interface ModelRequest {
  trajectory: string | null;
  headers?: Record<string, string>;
}
interface Event {
  type: string;
  message?: { id?: string; content?: unknown };
}

const base = mkdtempSync(join(tmpdir(), "wfbench-settings-hijack-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

function jsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as T);
}

function transcriptsOf(task: string): Event[][] {
  return readdirSync(join(out, "transcripts"))
    .filter((name) => name.startsWith(`${task}-`))
    .map((name) => jsonl<Event>(join(out, "transcripts", name)));
}

/** KEY=VALUE lines of the tool results only (the commands themselves also contain the key names). */
function probeReport(task: string): Record<string, string[]> {
  const report: Record<string, string[]> = {};
  for (const events of transcriptsOf(task)) {
    for (const event of events) {
      if (event.type !== "user" || !Array.isArray(event.message?.content)) continue;
      for (const block of event.message.content as { type?: string; content?: unknown }[]) {
        if (block.type !== "tool_result") continue;
        const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
        for (const line of text.split("\n")) {
          const match = /^([A-Z][A-Z0-9_]*)=(.*)$/u.exec(line);
          if (match !== null) (report[match[1] as string] ??= []).push(match[2] as string);
        }
      }
    }
  }
  return report;
}

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow", "--workers", "2", "--out", out];
  result = await runRunner(args);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("an agent that rewrites the workspace's Claude Code settings", () => {
  it("ran both cells to a row", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((row) => row["task"]).sort()).toEqual(["env-hijack", "helper-hijack"]);
  });

  it("cannot write either settings file: both are read-only stubs during every session", () => {
    const env = probeReport("env-hijack");
    expect(env["SETTINGS_WRITE"]).toEqual(["denied"]);
    expect(env["LOCAL_WRITE"]).toEqual(["denied"]);
    expect(probeReport("helper-hijack")["SETTINGS_WRITE"]).toEqual(["denied"]);
    // Nor does a stub ever show up as a change: the sanitized template carries the same `{}` bytes.
    for (const row of rows) expect(readFileSync(join(out, String(row["patch_artifact"])), "utf8")).not.toMatch(/settings(?:\.local)?\.json/u);
  });

  it("never gets the token into a tool process: its shell sees none, and its own requests are refused with 401", () => {
    expect(probeReport("env-hijack")["TOKEN_LEN"]).toEqual(["0"]);
    expect(probeReport("env-hijack")["SIDE_STATUS"]).toEqual(["401"]);
    // The work sessions (if the plan was accepted) see no token either.
    for (const task of ["env-hijack", "helper-hijack"]) for (const seen of probeReport(task)["WORK_TOKEN_LEN"] ?? []) expect(seen).toBe("0");
    const usage = jsonl<UsageRow>(join(out, "gateway-usage.jsonl"));
    const refused = usage.filter((row) => row.cell_id === null);
    // Exactly the env-hijack's curl, without a token: the planted apiKeyHelper (which would call curl too) never ran.
    expect(refused.map((row) => [row.outcome, row.http_status])).toEqual([["unauthorized", 401]]);
    // The model only ever saw the CLI: no side-channel request reached it, none came from curl.
    const requests = jsonl<ModelRequest>(join(out, "scripted-model-requests.jsonl"));
    expect(requests.filter((request) => request.trajectory === "side-channel")).toEqual([]);
    expect(requests.every((request) => (request.headers?.["user-agent"] ?? "").startsWith("claude-cli/"))).toBe(true);
    // Had the helper run, the file it writes would be a new file in the patch.
    for (const row of rows) expect(readFileSync(join(out, String(row["patch_artifact"])), "utf8")).not.toContain("b/.claude/helper-token.txt");
  });

  it("leaves every wire request of a cell accounted for by the cell's own CLI streams", () => {
    const usage = jsonl<UsageRow>(join(out, "gateway-usage.jsonl"));
    for (const row of rows) {
      const cell = `${String(row["task"])}/workflow/run0`;
      const streamIds = new Set(transcriptsOf(String(row["task"])).flatMap((events) => events.flatMap((event) => (event.type === "assistant" && typeof event.message?.id === "string" ? [event.message.id] : []))));
      const served = usage.filter((u) => u.cell_id === cell && u.outcome === "ok");
      expect(served.length).toBe(row["wire_requests"]);
      // Host evidence: each paid request's message id is in the transcript the parent captured from the CLI.
      for (const u of served) expect(u.message_id !== null && streamIds.has(u.message_id), `${cell} ${String(u.message_id)}`).toBe(true);
      expect(row).toMatchObject({ wire_unaccounted_requests: 0, wire_unaccounted_cost_usd: 0 });
      expect(row["error_kind"]).not.toBe("evidence-unverified");
      // With no spend outside the CLI, the cost of record and the CLI's figure agree to within the price tables' rounding.
      expect(Math.abs(Number(row["wire_cost_usd"]) - Number(row["cost_usd"]))).toBeLessThan(0.001);
    }
  });

  it("stores no cell token in any patch, transcript, row or report", () => {
    const files = [
      ...rows.map((row) => join(out, String(row["patch_artifact"]))),
      ...readdirSync(join(out, "transcripts")).map((name) => join(out, "transcripts", name)),
      join(out, "results.jsonl"),
      join(out, "report.md"),
    ];
    expect(files.length).toBeGreaterThan(4);
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toMatch(TOKEN_PATTERN);
  });
});
