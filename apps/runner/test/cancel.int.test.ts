// Evidence durability of a real sweep: SIGTERM in the middle keeps every row already recorded byte for byte, records
// the running cell as `cancelled`, starts nothing new, still writes a report that says so, and exits 130. An --out that
// already holds a run is refused before anything is written.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/cancel", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-cancel-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function runnerArgs(out: string): string[] {
  return ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--out", out];
}

describe.skipIf(tools.skip)("an interrupted sweep", () => {
  it("keeps earlier rows, records the running cell as cancelled, writes a cancelled report and exits 130", async () => {
    const out = join(base, "interrupted");
    let before = "";
    let interrupting = false;
    const { code, stdout } = await runRunner(runnerArgs(out), {
      onStdout: (sofar, child) => {
        if (interrupting || !sofar.includes("[slow][baseline][run 0] starting")) return;
        interrupting = true;
        // Give the slow session time to reach its sleeping Bash call, then interrupt the sweep.
        setTimeout(() => {
          before = readFileSync(join(out, "results.jsonl"), "utf8");
          child.kill("SIGTERM");
        }, 2500);
      },
    });
    expect(code).toBe(130);
    const after = readFileSync(join(out, "results.jsonl"), "utf8");
    expect(before.split("\n").filter(Boolean)).toHaveLength(1);
    expect(after.startsWith(before)).toBe(true);
    const rows = readResultRows(out);
    expect(rows.map((row) => [row["task"], row["error_kind"]])).toEqual([
      ["quick", "no-work-produced"],
      ["slow", "cancelled"],
    ]);
    expect(rows[1]?.["resolved"]).toBe(false);
    expect(stdout).not.toContain("[never]");
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("Sweep cancelled");
    expect(report).toContain("cancelled×1");
  }, 60_000);

  it("refuses an --out that already holds a run, and leaves it untouched", async () => {
    const out = join(base, "existing");
    mkdirSync(out);
    writeFileSync(join(out, "results.jsonl"), '{"sentinel":true}\n');
    const { code, stderr } = await runRunner(runnerArgs(out));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--out .*existing.* is not empty/u);
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toBe('{"sentinel":true}\n');
  }, 30_000);
});
