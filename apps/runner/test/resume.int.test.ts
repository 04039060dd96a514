// --resume through the real runner: a sweep killed with SIGKILL in its third cell (after a torn line was left at the
// end of results.jsonl) is continued in place; the torn line is dropped with a note, the two finished cells are not
// paid again (gateway-usage.jsonl gains requests only for the missing cell), and the final rows equal an
// uninterrupted sweep's except for timestamps, session ids (and the transcripts named by them) and wall times.
// A resume under a changed binding (--effort) refuses, naming the field.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/reuse", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-resume-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const FLAGS = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--repeats", "3"];
const VOLATILE = new Set(["recorded_at", "session_ids", "transcript_artifacts", "duration_s", "timings_ms"]);
// node --test prints how long each test took inside the verify output: a wall time too.
const stable = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).filter(([key]) => !VOLATILE.has(key)).map(([key, value]) => [key, typeof value === "string" ? value.replace(/duration_ms[: ]+[\d.]+/gu, "duration_ms <t>") : value]));

function requestsPerCell(out: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of readFileSync(join(out, "gateway-usage.jsonl"), "utf8").split("\n")) {
    if (line === "") continue;
    const id = (JSON.parse(line) as { cell_id?: unknown }).cell_id;
    if (typeof id === "string") counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

describe.skipIf(tools.skip)("--resume", () => {
  it("continues a SIGKILLed sweep in place: same rows as an uninterrupted one, nothing paid twice", async () => {
    const whole = join(base, "whole");
    const full = await runRunner([...FLAGS, "--out", whole]);
    expect(full.code, full.stderr).toBe(0);

    const killed = join(base, "killed");
    let sent = false;
    const first = await runRunner([...FLAGS, "--out", killed], {
      onStdout: (stdout, child) => {
        if (!sent && stdout.includes("[run 2] starting")) {
          sent = true;
          child.kill("SIGKILL");
        }
      },
    });
    expect(first.code).toBeNull();
    expect(readResultRows(killed).map((row) => row["run"])).toEqual([0, 1]);
    // What a kill in the middle of an append leaves: a line without its newline.
    appendFileSync(join(killed, "results.jsonl"), '{"task":"reuse-clamp","arm":"base');
    const before = requestsPerCell(killed);

    const resumed = await runRunner([...FLAGS, "--resume", killed]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resume: dropped a partial last line of results\.jsonl \(33 bytes\)/u);
    expect(resumed.stdout).toContain("1 cell(s)");
    const after = requestsPerCell(killed);
    expect(after["reuse-clamp/baseline/run0"]).toBe(before["reuse-clamp/baseline/run0"]);
    expect(after["reuse-clamp/baseline/run1"]).toBe(before["reuse-clamp/baseline/run1"]);
    expect(after["reuse-clamp/baseline/run2"]).toBeGreaterThan(before["reuse-clamp/baseline/run2"] ?? 0);
    expect(readResultRows(killed).map(stable)).toEqual(readResultRows(whole).map(stable));
    expect(readFileSync(join(killed, "report.md"), "utf8")).toContain("3/3");

    const drifted = await runRunner([...FLAGS, "--effort", "high", "--resume", killed]);
    expect(drifted.code).toBe(2);
    expect(drifted.stderr).toMatch(/line 1 \[reuse-clamp\]\[baseline\]\[run 0\] field effort changed/u);
  }, 300_000);
});
