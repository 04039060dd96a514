// The session boundary against a process the agent leaves running: in both sessions of a workflow cell, one Bash call
// leaves a setsid'd watcher polling /proc/<pid>/environ, the next calls make the CLI start more shells, and the last
// spends whatever the watcher read on /run/gateway.sock (the plan session first tries to unpin the shell through every
// config file in its HOME). The CLI itself is non-dumpable (execute-only copy), but
// before the execute-only shell (@wfbench/claude-cli's stageExecOnlyShell + CLAUDE_EXEC_ONLY_SHELL_ENV, the prefix script run
// under it with `exec -c`) the shells it
// starts with its own environment were readable: the watcher got the cell token (length 55) from `bash -c "<prefix>
// '<cmd>'"`, the prefix script or its `env -i`, and the gateway served two side requests of $0.45 billed to the cell.
// Judged from host evidence only: the gateway usage log, the scripted model's request log, the row, the transcripts.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, readToolResultTexts, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/session-boundary", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
const TOKEN_PATTERN = /sk-wfb-[0-9a-f]{48}/u;
const CELL = "shell-environ/workflow/run0";

interface UsageRow {
  cell_id: string | null;
  outcome: string;
  http_status: number | null;
}

const base = mkdtempSync(join(tmpdir(), "wfbench-session-boundary-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];
let survivors: string[] = [];

/** Host processes still running the watcher script (each would live 60 s, several times the whole sweep). */
function watchersOnHost(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/u.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes("/tmp/session-watch.py")) found.push(`${pid} ${cmdline}`);
    } catch {
      // Exited while the table was read.
    }
  }
  return found;
}

function jsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as T);
}

/** KEY=VALUE lines of each session's tool results (the commands themselves name the keys too), one report per transcript. */
function sessionReports(): Record<string, string>[] {
  return readdirSync(join(out, "transcripts")).map((name) => {
    const report: Record<string, string> = {};
    for (const text of readToolResultTexts(join(out, "transcripts", name))) {
      for (const match of text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gmu)) report[match[1] as string] = (match[2] as string).trim();
      if (text.includes("process file that this tool does not read")) report["READ_TOOL"] = "refused";
    }
    return report;
  });
}

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow", "--out", out];
  result = await runRunner(args);
  survivors = watchersOnHost();
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("a process the agent leaves running, watching the shells the CLI starts", () => {
  it("ran both sessions of the cell, each with its watcher running and seeing the later calls' processes", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.["session_ids"]).toHaveLength(2);
    const reports = sessionReports();
    expect(reports).toHaveLength(2);
    for (const report of reports) {
      expect(report).toMatchObject({ WATCHER: "started", SECOND: "done", READ_TOOL: "refused" });
      // The control: the agent's own shells are readable, so the watcher did see the processes of the later calls.
      expect(report["READABLE"]?.split(" ")).toContain("sleep");
    }
  });

  it("reads the token from no process in either session, so its side requests carry none and are refused with 401", () => {
    for (const report of sessionReports()) {
      expect(report["LEAKED_TO"]).toBe("");
      expect(report["STOLEN_LEN"]).toBe("0");
      expect(report["SIDE_STATUS"]).toBe("401");
      // The agent's own shell has none either, after the plan session's unpinning env had time to be reloaded.
      expect(report["SHELL_TOKEN_LEN"]).toBe("0");
    }
    expect(sessionReports().map((report) => report["USER_CONFIG"] ?? "-").sort()).toEqual(["-", "planted"]);
    const usage = jsonl<UsageRow>(join(out, "gateway-usage.jsonl"));
    expect(usage.filter((row) => row.cell_id === null).map((row) => [row.outcome, row.http_status])).toEqual([
      ["unauthorized", 401],
      ["unauthorized", 401],
    ]);
    const requests = jsonl<{ trajectory: string | null }>(join(out, "scripted-model-requests.jsonl"));
    expect(requests.filter((request) => request.trajectory === "side-channel")).toEqual([]);
    expect(rows[0]).toMatchObject({ wire_unaccounted_requests: 0, wire_unaccounted_cost_usd: 0 });
    expect(usage.filter((row) => row.cell_id === CELL && row.outcome === "ok")).toHaveLength(Number(rows[0]?.["wire_requests"]));
  });

  it("leaves no watcher running once the sweep is done: each session's sandbox took its processes down with it", () => {
    expect(survivors).toEqual([]);
  });

  it("stores no cell token in any patch, transcript, row or report", () => {
    const files = [join(out, String(rows[0]?.["patch_artifact"])), ...readdirSync(join(out, "transcripts")).map((name) => join(out, "transcripts", name)), join(out, "results.jsonl"), join(out, "report.md")];
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toMatch(TOKEN_PATTERN);
  });
});
