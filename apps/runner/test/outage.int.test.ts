// The outage breaker through the real runner (reference §5.7): a model whose every request fails makes every cell a
// session-error; with --outage-streak 3 the streak reaches the limit inside the second task (it carries across the
// task boundary), no further cell starts beyond the ones already running (at most workers − 1 = 1), every row that
// was produced is written in canonical order, report.md says the sweep aborted, and the runner exits 1.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/outage", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-outage-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("a systemic outage", () => {
  it("trips after 3 consecutive session errors across tasks, starts nothing new, writes an aborted report and exits 1", async () => {
    const out = join(base, "out");
    const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--repeats", "2", "--workers", "2", "--outage-streak", "3", "--out", out];
    const { code, stdout, stderr } = await runRunner(args);
    expect(code, stderr).toBe(1);
    const rows = readResultRows(out);
    // Canonical order: first r0, first r1, second r0 (the third failure trips), then at most one cell that was running.
    const canonical = [["first", 0], ["first", 1], ["second", 0], ["second", 1]];
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.length).toBeLessThanOrEqual(4);
    expect(rows.map((row) => [row["task"], row["run"]])).toEqual(canonical.slice(0, rows.length));
    for (const row of rows) expect([row["error_kind"], row["resolved"]]).toEqual(["session-error", false]);
    expect(stdout).toMatch(/\[systemic-outage\] 3 consecutive .* ending at \[second\]\[baseline\]\[run 0\]/u);
    const starts = stdout.split("\n").filter((line) => / starting \(/u.test(line));
    expect(starts.length).toBe(rows.length);
    expect(stdout).not.toContain("[third]");
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("Sweep aborted: partial evidence; promotion is disabled.");
    expect(report).toContain(`session-error×${rows.filter((row) => row["task"] === "first").length}`);
  }, 240_000);
});
