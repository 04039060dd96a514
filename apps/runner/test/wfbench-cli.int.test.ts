// The installed `wfbench` command (apps/runner/bin/wfbench.mjs, what `npx wfbench` runs) through the real runner:
// every subcommand's --help, usage errors, a demo sweep that appends to GITHUB_STEP_SUMMARY, `report` re-rendering
// that sweep's report.md byte for byte, and a hostile --claude-bin refused before any cell.
import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const BIN = join(REPO_ROOT, "apps/runner/bin/wfbench.mjs");

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin as a user would (its shebang, no flags to node), from source, with only PATH and HOME from the host. */
function wfbench(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", WFBENCH_FROM_SOURCE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfbench-cli-"));
  dirs.push(dir);
  return dir;
}

describe("wfbench bin", () => {
  it.each([
    [["--help"], "Usage: wfbench <command>"],
    [["run", "--help"], "Usage: wfbench run [flags]"],
    [["report", "--help"], "Usage: wfbench report <out-dir>"],
    [["merge", "--help"], "Usage: wfbench merge"],
    [["evolve", "--help"], "Usage: wfbench evolve"],
  ])("%j prints its usage and exits 0", async (args, usage) => {
    const result = await wfbench(args);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout.startsWith(usage)).toBe(true);
  });

  it.each([
    [[], /wfbench: needs a command/],
    [["frobnicate"], /unknown command "frobnicate": choose run, report, merge, propose or evolve/],
    [["run", "--workers", "0"], /--workers must be between 1 and 8/],
    [["run", "--outage-streak", "10001"], /--outage-streak must be between 0 and 10000/],
    [["run", "--model", "gpt-4.1"], /gpt-4\.1 is an OpenAI model id, but the scripted model answers only Anthropic ids/],
    [["report"], /needs the output directory/],
    [["report", "/nonexistent/wfbench-out"], /\/nonexistent\/wfbench-out does not exist: pass the output directory/],
    [["report", "/etc/passwd"], /\/etc\/passwd is not a directory: pass the output directory/],
    [["run", "--out", "/etc/passwd"], /--out \/etc\/passwd is a file, or has a file on its way, not a directory: pass a new directory you can write/],
    [["merge"], /needs the output directory and at least one shard directory/],
    [["merge", "/nonexistent/wfbench-merged", "/nonexistent/wfbench-shard"], /has no sweep-plan\.json/],
    [["run", "--shard", "4/3"], /--shard 4\/3: k must be between 1 and N=3/],
    [["evolve"], /--tasks is required/],
    [["evolve", "--tasks", "t.yaml", "--model", "claude-sonnet-4-5", "--workers", "9"], /--workers 9 is out of range 1\.\.8/],
  ])("%j is refused with exit 2 and a message naming the fix", async (args, message) => {
    const result = await wfbench(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe.skipIf(tools.skip)("wfbench run / report on the demo suite", () => {
  it("a sweep appends its main table to GITHUB_STEP_SUMMARY, and `report` re-renders the same report.md", async () => {
    const work = scratch();
    const out = join(work, "out");
    const summary = join(work, "step-summary.md");
    writeFileSync(summary, "earlier step\n");
    const run = await wfbench(["run", "--arms", "workflow_direct", "baseline", "--proposer-model", "claude-opus-4-1", "--out", out], { GITHUB_STEP_SUMMARY: summary });
    expect(run.code, run.stderr).toBe(0);
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("- Proposer model: `claude-opus-4-1`");
    const rows = readResultRows<{ proposer_model: string | null }>(out);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.proposer_model === "claude-opus-4-1")).toBe(true);

    const appended = readFileSync(summary, "utf8");
    expect(appended.startsWith("earlier step\n")).toBe(true);
    const table = appended.slice("earlier step\n".length);
    expect(table).toMatch(/^## wfbench\n\n\| task \| class \| arm \|/u);
    // The appended table is the report's own first table, line for line.
    const tableLines = table.trim().split("\n").slice(2);
    expect(report).toContain(tableLines.join("\n"));
    expect(tableLines.some((line) => line.includes("| baseline |"))).toBe(true);

    // Re-render into a copy with report.md removed: the same bytes come back.
    const copy = join(work, "copy");
    cpSync(out, copy, { recursive: true });
    unlinkSync(join(copy, "report.md"));
    const rerun = await wfbench(["report", copy]);
    expect([rerun.code, rerun.stderr]).toEqual([0, ""]);
    expect(readFileSync(join(copy, "report.md"), "utf8")).toBe(report);

    // A tampered provenance file is refused naming the field, and report.md is left as it was.
    const provenance = JSON.parse(readFileSync(join(copy, "report-provenance.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(copy, "report-provenance.json"), JSON.stringify({ ...provenance, status: "fine" }));
    const refused = await wfbench(["report", "--out", copy]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/report-provenance\.json field status/);
    expect(readFileSync(join(copy, "report.md"), "utf8")).toBe(report);
    // A whole demo sweep (two arms, every task, MCP server start-ups) plus two re-renders: minutes under shared load.
  }, 300_000);

  it("a hostile --claude-bin (a script printing garbage) is refused with exit 2 before any output directory exists", async () => {
    const work = scratch();
    const fake = join(work, "claude");
    writeFileSync(fake, "#!/bin/sh\necho 'totally claude; rm -rf /'\n");
    chmodSync(fake, 0o755);
    const out = join(work, "out");
    const result = await wfbench(["run", "--claude-bin", fake, "--out", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--claude-bin .*totally claude; rm -rf \/.*pass a Claude Code CLI/);
    expect(() => readFileSync(join(out, "results.jsonl"))).toThrow();
  });
});
