// Comparator reuse through the real runner (reference §5.6): a second sweep given the first one's directory pays only
// the health-canary cell: the reused cell made no gateway request (judged from gateway-usage.jsonl, host evidence),
// its row is re-stamped as reused and its transcript and patch are byte-identical copies; every row carries the
// sweep's runtime digest. Flipping one binding (--effort) makes every row ineligible, so everything is paid again.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/reuse", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-reuse-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const sweep = (out: string, ...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runRunner(["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--repeats", "2", "--out", out, ...extra]);

// The cell ids that made at least one request through the gateway (host evidence; the sandbox cannot write it).
function cellsWithRequests(out: string): string[] {
  const path = join(out, "gateway-usage.jsonl");
  if (!existsSync(path)) return [];
  const ids = readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => (JSON.parse(line) as { cell_id?: unknown }).cell_id);
  return [...new Set(ids.filter((id): id is string => typeof id === "string"))].sort();
}

describe.skipIf(tools.skip)("--reuse-results", () => {
  const first = join(base, "first");
  it("a first sweep pays every cell and records a runtime digest in every row", async () => {
    const { code, stderr } = await sweep(first);
    expect(code, stderr).toBe(0);
    const rows = readResultRows(first);
    expect(rows.map((row) => [row["run"], row["resolved"], row["error_kind"]])).toEqual([[0, true, null], [1, true, null]]);
    for (const row of rows) expect(row["runtime_digest"]).toMatch(/^[0-9a-f]{64}$/u);
    expect(new Set(rows.map((row) => row["runtime_digest"])).size).toBe(1);
    expect(cellsWithRequests(first)).toEqual(["reuse-clamp/baseline/run0", "reuse-clamp/baseline/run1"]);
  }, 240_000);

  it("a second sweep reuses all but the canary cell: the reused cell makes no request and its files are copied", async () => {
    const second = join(base, "second");
    const { code, stdout, stderr } = await sweep(second, "--reuse-results", first);
    expect(code, stderr).toBe(0);
    const rows = readResultRows(second);
    const earlier = readResultRows(first);
    // Reused rows are written first; the canary (the lexically first key, run 0) is measured fresh.
    expect(rows.map((row) => [row["run"], row["reused"] ?? false])).toEqual([[1, true], [0, false]]);
    expect(cellsWithRequests(second)).toEqual(["reuse-clamp/baseline/run0"]);
    const reused = rows[0] as Record<string, unknown>;
    const original = earlier[1] as Record<string, unknown>;
    expect(reused["reused_from_recorded_at"]).toBe(original["recorded_at"]);
    expect(reused["recorded_at"]).not.toBe(original["recorded_at"]);
    expect(reused["session_ids"]).toEqual(original["session_ids"]);
    for (const artifact of reused["transcript_artifacts"] as { path: string }[]) expect(readFileSync(join(second, artifact.path)).equals(readFileSync(join(first, artifact.path)))).toBe(true);
    expect(readFileSync(join(second, reused["patch_artifact"] as string)).equals(readFileSync(join(first, original["patch_artifact"] as string)))).toBe(true);
    expect(stdout).toContain("1 cell(s)");
    expect(readFileSync(join(second, "report.md"), "utf8")).toContain(`Comparator reuse: 1 cell(s) reused from \`${first}\`, 1 paid`);
  }, 240_000);

  it("a changed binding (--effort) refuses every earlier row: everything is paid again", async () => {
    const third = join(base, "third");
    const { code, stderr } = await sweep(third, "--reuse-results", first, "--effort", "high");
    expect(code, stderr).toBe(0);
    expect(readResultRows(third).map((row) => row["reused"] ?? false)).toEqual([false, false]);
    expect(cellsWithRequests(third)).toEqual(["reuse-clamp/baseline/run0", "reuse-clamp/baseline/run1"]);
  }, 240_000);

  it("--task-bindings-json: a pinned binding that drifted refuses the run, naming the task and field, before any cell", async () => {
    const pins = join(base, "pins.json");
    writeFileSync(pins, JSON.stringify([{ id: "reuse-clamp", prompt_digest: "0".repeat(64) }]));
    const out = join(base, "pinned");
    const { code, stderr } = await sweep(out, "--task-bindings-json", pins);
    expect(code).toBe(2);
    expect(stderr).toMatch(/task "reuse-clamp" field \w+: the pinned binding is .* the task definition drifted/u);
    expect(cellsWithRequests(out)).toEqual([]);
  }, 60_000);

  it("refuses the --out directory as its own source before any paid work", async () => {
    const { code, stderr } = await sweep(first, "--reuse-results", first);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not empty|is the --out directory/u);
  }, 60_000);
});
