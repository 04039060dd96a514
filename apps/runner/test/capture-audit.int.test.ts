// What the harness records after the agent's session, attacked from inside the session through the real runner (real
// CLI, bwrap, git and gateway): a directory git may enter but not list, holding the code the oracle imports, so the
// patch, churn and diff digest would leave it out while the oracle passes on it (unlistable-dir); and background
// writers (setsid, nohup with ignored signals, a double-forked daemon) that try to outlive the session and answer
// during verify, oracle and capture, behind a verify that prints the harness's own "[verify exited 0]" line and fails
// (late-writer); and a session that pads its own output past the 8 MiB capture bound instead of doing the task, so
// its evidence is unverifiable and its row would be excluded from medians although the oracle failed (overflow-pad).
// Judged from host evidence only: results.jsonl, the patch files under --out, the parent-captured
// transcripts (for what the agent saw inside), and the host's /proc after the runner exited.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listTaskTranscripts, probeRunnerTools, readResultRows, readToolResultTexts, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/capture-audit", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
const WRITER_MARKER = "LATE-WRITER-9c1d";

const base = mkdtempSync(join(tmpdir(), "wfbench-capture-audit-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];
let survivors: string[] = [];

/** Every process on the host whose argv holds `marker` (pid namespaces do not hide them from the host's /proc). */
function hostProcessesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/u.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (argv.includes(marker)) found.push(`${pid}: ${argv}`);
    } catch {
      // Exited between the listing and the read.
    }
  }
  return found;
}

/** The fixture's script plus overflow-pad: one 9 MiB text turn beside a harmless tool call, and no work at all. */
function writeScript(): string {
  const pad = {
    name: "overflow-pad",
    match: { contains: "OVERFLOW-PAD-5d21", in: "first_user" },
    turns: [
      { content: [{ type: "tool_use", name: "Skill", input: { skill: "demo-work" } }], usage: { input_tokens: 1000, output_tokens: 20 } },
      { content: [{ type: "text", text: "pad ".repeat(9 * 256 * 1024) }, { type: "tool_use", name: "Bash", input: { command: "echo PADDED=yes", description: "pad" } }], usage: { input_tokens: 1100, output_tokens: 40 } },
      { content: [{ type: "text", text: "Done." }], usage: { input_tokens: 1200, output_tokens: 5 } },
    ],
  };
  const path = join(base, "script.yaml");
  // trajectories is the file's last key, so one more flow-style item (JSON is YAML) closes the list.
  writeFileSync(path, `${readFileSync(join(FIXTURE, "script.yaml"), "utf8").trimEnd()}\n  - ${JSON.stringify(pad)}\n`);
  return path;
}

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", writeScript(), "--oracles", join(FIXTURE, "oracles"), "--arms", "workflow_direct", "--workers", "2", "--out", out];
  result = await runRunner(args);
  survivors = hostProcessesWith(WRITER_MARKER);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

function rowOf(task: string): Record<string, unknown> {
  const row = rows.find((r) => r["task"] === task);
  expect(row, JSON.stringify(rows.map((r) => [r["task"], r["error_kind"], r["error_detail"]]))).toBeDefined();
  return row as Record<string, unknown>;
}

function patchOf(row: Record<string, unknown>): string {
  return readFileSync(join(out, row["patch_artifact"] as string), "utf8");
}

/** KEY=value lines of the tool results the parent captured for a task (what the agent saw inside its session). */
function probeReport(task: string): Record<string, string> {
  const report: Record<string, string> = {};
  for (const text of listTaskTranscripts(out, task).flatMap(readToolResultTexts)) {
    for (const match of text.matchAll(/^([A-Z_]+)=(.*)$/gmu)) report[match[1] as string] = match[2] as string;
  }
  return report;
}

describe.skipIf(tools.skip)("an agent that attacks what the harness records after its session", () => {
  it("ran every cell to a verdict", () => {
    // workflow_direct has admissible rows (none is excluded), so the sweep's measurement health passes.
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((r) => String(r["task"])).sort()).toEqual(["late-writer", "overflow-pad", "unlistable-dir"]);
    for (const row of rows.filter((r) => r["task"] !== "overflow-pad")) expect(row).toMatchObject({ ok: true, skill_invoked: true });
  });

  it("cannot pass the oracle on code the patch, churn and diff digest never show: an unlistable directory is refused", () => {
    // Inside the session the attack worked: the tests passed on the hidden code and the agent's own git did not see it.
    const report = probeReport("unlistable-dir");
    expect(report["TESTS"]).toBe("pass");
    expect(report["LISTABLE"]).toBe("no");
    expect(report["GIT_SEES"]).not.toContain("double.js");
    const row = rowOf("unlistable-dir");
    expect(row).toMatchObject({ resolved: false, ok: true, error_kind: "workspace-invalid" });
    expect(String(row["error_detail"])).toContain("src/impl");
    // Not an exclusion: workspace-invalid is the candidate's own unresolved run.
    expect(row["oracle_passed"]).toBe(true);
  });

  it("leaves no writer alive: nothing it started answers during verify, oracle or capture, or outlives the sweep", () => {
    const report = probeReport("late-writer");
    // The writers were running when the session ended (the Bash tool's own shell may be counted too).
    expect(Number(report["WRITERS"])).toBeGreaterThanOrEqual(3);
    expect(survivors).toEqual([]);
    const row = rowOf("late-writer");
    expect(row).toMatchObject({ oracle_passed: false, oracle_output: "hidden oracle failed", resolved: false });
    const patch = patchOf(row);
    expect(patch).toContain("+unsolved");
    expect(patch).not.toContain("+solved");
    expect(patch).not.toContain("late-");
    expect(row).toMatchObject({ diff_files: 1, diff_insertions: 1, diff_deletions: 0 });
  });

  it("cannot launder a failed oracle into an excluded row by overflowing its own capture", () => {
    const row = rowOf("overflow-pad");
    expect(row).toMatchObject({ resolved: false, ok: false, oracle_passed: false, error_kind: "oracle-failed", transcript_missing: true, skill_invoked: null });
    const diagnostics = row["evidence_diagnostics"] as string[];
    expect(diagnostics[0]).toBe("EVIDENCE_OVERSIZE: the capture overflowed its bound and was truncated");
    expect(diagnostics).toContain("the session's evidence is unverifiable (its own output overflowed the capture), but the hidden oracle failed on the workspace it left: counted as that failure, not excluded");
  });

  it("judges verify by its exit code: a printed '[verify exited 0]' line passes nothing", () => {
    const row = rowOf("late-writer");
    expect(row).toMatchObject({ authored_tests_passed: false, error_kind: "verify-failed" });
    expect(String(row["verify_output"]).endsWith("[verify exited 0]\n\n[verify exited 3]")).toBe(true);
  });
});
