// Reference §5.6 "template and index preparation skipped for a fully reused task", through the real runner: a reuse
// run whose earlier sweep recorded the same template (template-bindings.json, same key) prepares no template for the
// task whose every cell is reused, and still pays only the health canary (judged from gateway-usage.jsonl, host
// evidence). A source without the record, or with a record the rows contradict, prepares every template (fail closed)
// and reuses the same rows.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/reuse-skip-template", import.meta.url));
const SCRIPT = fileURLToPath(new URL("./fixtures/reuse/script.yaml", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-reuse-skip-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const sweep = (out: string, ...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  runRunner(["--tasks", join(FIXTURE, "suite.yaml"), "--script", SCRIPT, "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--repeats", "1", "--out", out, ...extra]);

function cellsWithRequests(out: string): string[] {
  const path = join(out, "gateway-usage.jsonl");
  if (!existsSync(path)) return [];
  const ids = readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => (JSON.parse(line) as { cell_id?: unknown }).cell_id);
  return [...new Set(ids.filter((id): id is string => typeof id === "string"))].sort();
}

const skippedTasks = (stderr: string): string[] => [...stderr.matchAll(/task (reuse-skip-\w): every planned cell is reused, so its sanitized template and index are not prepared/gu)].map((match) => match[1] as string);
const reusedOf = (out: string): [unknown, unknown][] => readResultRows(out).map((row) => [row["task"], row["reused"] ?? false]);
const bindingsOf = (out: string): { tasks: Record<string, { template_key: string; sanitized_sha: string; skill_digests: Record<string, unknown> }> } => JSON.parse(readFileSync(join(out, "template-bindings.json"), "utf8"));

describe.skipIf(tools.skip)("--reuse-results: no template for a fully reused task", () => {
  const first = join(base, "first");
  it("a first sweep pays both cells and records each task's template", async () => {
    const { code, stderr } = await sweep(first);
    expect(code, stderr).toBe(0);
    expect(cellsWithRequests(first)).toEqual(["reuse-skip-a/baseline/run0", "reuse-skip-b/baseline/run0"]);
    const bindings = bindingsOf(first);
    expect(Object.keys(bindings.tasks)).toEqual(["reuse-skip-a", "reuse-skip-b"]);
    const rows = readResultRows(first);
    for (const row of rows) {
      const recorded = bindings.tasks[row["task"] as string];
      expect(recorded?.sanitized_sha).toBe(row["sanitized_task_sha"]);
      expect(recorded?.template_key).toMatch(/^[0-9a-f]{64}$/u);
      expect(recorded?.skill_digests).toEqual({ baseline: null });
    }
  }, 240_000);

  it("a reuse run prepares no template for reuse-skip-b and pays only the canary, reuse-skip-a", async () => {
    const second = join(base, "second");
    const { code, stderr } = await sweep(second, "--reuse-results", first);
    expect(code, stderr).toBe(0);
    expect(skippedTasks(stderr)).toEqual(["reuse-skip-b"]);
    expect(cellsWithRequests(second)).toEqual(["reuse-skip-a/baseline/run0"]);
    expect(reusedOf(second)).toEqual([["reuse-skip-b", true], ["reuse-skip-a", false]]);
    // The record carries over, so the next reuse run can skip again.
    expect(bindingsOf(second)).toEqual(bindingsOf(first));
  }, 240_000);

  it("fails closed: without the record, or with one the rows contradict, every template is prepared and the same rows are reused", async () => {
    const bare = join(base, "first-bare");
    cpSync(first, bare, { recursive: true });
    rmSync(join(bare, "template-bindings.json"));
    const withoutRecord = join(base, "without-record");
    const plain = await sweep(withoutRecord, "--reuse-results", bare);
    expect(plain.code, plain.stderr).toBe(0);
    expect(skippedTasks(plain.stderr)).toEqual([]);
    expect(cellsWithRequests(withoutRecord)).toEqual(["reuse-skip-a/baseline/run0"]);
    expect(reusedOf(withoutRecord)).toEqual([["reuse-skip-b", true], ["reuse-skip-a", false]]);

    const forged = join(base, "first-forged");
    cpSync(first, forged, { recursive: true });
    const bindings = bindingsOf(first);
    const b = bindings.tasks["reuse-skip-b"] as { sanitized_sha: string };
    b.sanitized_sha = b.sanitized_sha.replace(/^./u, (c) => (c === "0" ? "1" : "0"));
    writeFileSync(join(forged, "template-bindings.json"), JSON.stringify(bindings));
    const contradicted = join(base, "contradicted");
    const checked = await sweep(contradicted, "--reuse-results", forged);
    expect(checked.code, checked.stderr).toBe(0);
    expect(skippedTasks(checked.stderr)).toEqual([]);
    expect(cellsWithRequests(contradicted)).toEqual(["reuse-skip-a/baseline/run0"]);
    expect(reusedOf(contradicted)).toEqual([["reuse-skip-b", true], ["reuse-skip-a", false]]);
    // What this sweep records comes from the template it built, not from the forged file.
    expect(bindingsOf(contradicted)).toEqual(bindingsOf(first));
  }, 360_000);
});
