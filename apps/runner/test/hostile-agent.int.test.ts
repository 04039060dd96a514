// The trust boundary seen from inside a cell: a scripted agent tries, through the Bash tool, every way out that the
// spec forbids (reference §6.3, README "Trust model") and reports what it got; a second trajectory backgrounds a Bash
// command, which 2.1.332 would otherwise turn into events after the result (a session-error). The evidence read here
// is the parent-captured transcript, never anything the agent wrote.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/hostile-agent", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

interface Event {
  type: string;
  subtype?: string;
  message?: { content?: unknown };
}

const base = mkdtempSync(join(tmpdir(), "wfbench-hostile-"));
const out = join(base, "out");
let exitCode: number | null = null;
let rows: Record<string, unknown>[] = [];

function transcriptsOf(task: string): Event[][] {
  return readdirSync(join(out, "transcripts"))
    .filter((name) => name.startsWith(`${task}-`))
    .map((name) =>
      readFileSync(join(out, "transcripts", name), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Event),
    );
}

function toolResults(events: Event[]): string[] {
  return events
    .flatMap((event) => (event.type === "user" && Array.isArray(event.message?.content) ? (event.message.content as { type?: string; content?: unknown }[]) : []))
    .filter((block) => block.type === "tool_result")
    .map((block) => (typeof block.content === "string" ? block.content : JSON.stringify(block.content)));
}

function probeReport(events: Event[]): Record<string, string[]> {
  const report: Record<string, string[]> = {};
  for (const line of toolResults(events).join("\n").split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/u.exec(line);
    if (match !== null) (report[match[1] as string] ??= []).push(match[2] as string);
  }
  return report;
}

beforeAll(async () => {
  if (tools.skip) return;
  // Two repeats with two workers: the cells of one task run at the same time, so "another cell's token" is live.
  const args = ["--tasks", join(FIXTURE, "repo/tasks/suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(FIXTURE, "repo/oracles"), "--arms", "workflow_direct", "--repeats", "2", "--workers", "2", "--out", out];
  exitCode = (await runRunner(args, { capture: false })).code;
  rows = readResultRows(out);
}, 90_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("a hostile agent inside a cell", () => {
  it("ran every cell to a verdict", () => {
    // The hostile script never loads its skill: every workflow_direct row is skill-not-invoked, an evidence failure, so
    // §5.8 judges the incumbent arm UNUSABLE and the sweep exits 1, with every row still written.
    expect(exitCode).toBe(1);
    expect(rows.map((row) => `${String(row["task"])}/${String(row["run"])}`).sort()).toEqual(["background-bash/0", "background-bash/1", "hostile-probe/0", "hostile-probe/1"]);
    expect(rows.map((row) => row["error_kind"])).toEqual(["skill-not-invoked", "skill-not-invoked", "skill-not-invoked", "skill-not-invoked"]);
  });

  it("cannot read the CLI's environment, memory or stdout (the CLI runs from an execute-only copy)", () => {
    const probes = transcriptsOf("hostile-probe");
    expect(probes).toHaveLength(2);
    for (const events of probes) {
      const report = probeReport(events);
      expect(report["CLI_FOUND"]).toEqual(["yes"]);
      expect(report["CLI_ENVIRON"]).toEqual(["denied"]);
      expect(report["CLI_FDS"]).toEqual(["denied"]);
      expect(report["CLI_MEM"]).toEqual(["denied"]);
      expect(report["CLI_STDOUT_STOLEN"]).toEqual(["no"]);
      expect(events.some((event) => event.subtype === "forged-by-agent")).toBe(false);
      expect(events.filter((event) => event.type === "result")).toHaveLength(1);
    }
  });

  it("cannot forge evidence through pid 1 of its namespace: the CLI is pid 1 itself, no bwrap init sits there", () => {
    for (const events of transcriptsOf("hostile-probe")) {
      const report = probeReport(events);
      // bwrap's own init used to be pid 1: dumpable, same uid, holding the CLI's stdout and the --setenv values.
      expect(report["PID1_COMM"]).toEqual(["claude"]);
      expect(report["NS_BWRAP"]).toEqual(["0"]);
      expect(report["PID1_FD_WRITE"]).toEqual(["denied"]);
      expect(report["PID1_PIDFD_GETFD"]).toEqual(["denied"]);
      expect(report["PID1_MEM"]).toEqual(["denied"]);
      expect(report["PID1_TOKEN"]).toEqual(["denied"]);
      expect(events.filter((event) => event.type === "system" && event.subtype === "forged-by-agent")).toEqual([]);
      expect(events.filter((event) => event.type === "result")).toHaveLength(1);
    }
    for (const row of rows.filter((r) => r["task"] === "hostile-probe")) {
      expect(row["error_kind"]).not.toBe("session-error");
      expect(row["transcript_missing"]).toBe(false);
      expect(JSON.stringify(row)).not.toContain("forged-by-agent");
    }
  });

  it("finds no upstream key and no concurrent cell's token anywhere it can look", () => {
    for (const events of transcriptsOf("hostile-probe")) {
      const report = probeReport(events);
      expect(report["AGENT_ENV_SECRETS"]).toEqual(["0"]);
      expect(report["UPSTREAM_KEY_IN_FILES"]).toEqual(["0"]);
      expect(report["UPSTREAM_KEY_IN_PROC"]).toEqual(["0"]);
      // The transcript redacts only the cell's own token, so any other token the probe found would show here raw.
      expect(report["TOKENS_SEEN"]).toHaveLength(1);
      for (const seen of (report["TOKENS_SEEN"]?.[0] ?? "").split(" ").filter(Boolean)) expect(seen).toBe("[REDACTED]");
    }
    for (const name of readdirSync(join(out, "transcripts"))) expect(readFileSync(join(out, "transcripts", name), "utf8")).not.toMatch(/sk-wfb-[0-9a-f]{48}/u);
  });

  it("never sees the hidden oracle, the suite file or the harness outputs, yet the oracle is staged after it exits", () => {
    for (const events of transcriptsOf("hostile-probe")) {
      const report = probeReport(events);
      expect(report["ORACLE_IN_FILES"]).toEqual(["0"]);
      expect(report["ORACLE_IN_GIT"]).toEqual(["0"]);
      expect(report["SUITE_IN_CLONE"]).toEqual(["0"]);
      expect(report["HARNESS_OUTPUTS"]).toEqual(["0"]);
    }
    for (const row of rows.filter((r) => r["task"] === "hostile-probe")) {
      expect(row["oracle_passed"]).toBe(true);
      expect(row["oracle_output"]).toBe("hidden oracle passed");
    }
    const visible = rows.map((row) => readFileSync(join(out, String(row["patch_artifact"])), "utf8")).join("\n");
    expect(visible).not.toContain("ORACLE-SECRET-7f3a");
  });

  it("cannot alter its skills, write outside its workspace, or reach the network", () => {
    for (const events of transcriptsOf("hostile-probe")) {
      const report = probeReport(events);
      expect(report["SKILL_WRITE"]).toEqual(["denied"]);
      expect(report["SKILL_MOVE"]).toEqual(["denied"]);
      expect(report["CLAUDE_DIR_MOVE"]).toEqual(["denied"]);
      expect(report["WRITE_OUTSIDE"]).toBeUndefined();
      expect(report["WRITE_CHECKS"]).toEqual(["done"]);
      expect(report["NET_EXTERNAL"]).toEqual(["closed"]);
      expect(report["NET_LINKS"]).toEqual(["1"]);
    }
    for (const row of rows) expect(row["error_kind"]).not.toBe("implementation-evidence-invalid");
  });

  it("keeps a backgrounded Bash call in the foreground: one result event, no session-error", () => {
    const sessions = transcriptsOf("background-bash");
    expect(sessions).toHaveLength(2);
    for (const events of sessions) {
      expect(events.filter((event) => event.type === "result")).toHaveLength(1);
      // CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1 removes the parameter, so the CLI refuses the call instead of detaching it.
      expect(toolResults(events).join("\n")).toMatch(/unexpected parameter `run_in_background`/u);
    }
    for (const row of rows.filter((r) => r["task"] === "background-bash")) {
      expect(row["error_kind"]).not.toBe("session-error");
      expect(row["transcript_missing"]).toBe(false);
    }
  });
});
