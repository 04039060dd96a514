// Issue 13 class 3 through the whole runner: after a session, every git the harness, verify or the oracle runs reads the
// harness-built .git (attributes and drivers off), never the repository config the agent left, and a file git must not
// read (huge, sparse) or a nested repository is counted and named instead of crashing the diff. Real CLI, bwrap, git and
// gateway; the evidence is the rows, the patches and the transcripts the parent captured.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listTaskTranscripts, probeRunnerTools, readResultRows, readToolResultTexts, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/git-forgery", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-git-forgery-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(FIXTURE, "oracles"), "--arms", "workflow_direct", "--workers", "2", "--out", out];
  result = await runRunner(args);
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

function toolResultsOf(task: string): string {
  return listTaskTranscripts(out, task).flatMap(readToolResultTexts).join("\n");
}

describe.skipIf(tools.skip)("an agent that attacks the git run after its session", () => {
  it("ran every cell to a verdict: none of the attacks turns into an infra-error", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((r) => `${String(r["task"])}:${String(r["error_kind"])}`).sort()).toEqual(["forge-oracle:oracle-failed", "nested-repo:null", "sparse-file:null"]);
  });

  it("cannot make a git-trusting oracle pass by cleaning emptied tests back to their committed bytes", () => {
    // The filter was live inside the session: the agent's own git saw the emptied tests as untouched.
    expect(toolResultsOf("forge-oracle")).toContain("GIT_SEES_TESTS=untouched");
    const row = rowOf("forge-oracle");
    expect(row).toMatchObject({ oracle_passed: false, resolved: false, ok: true, error_kind: "oracle-failed" });
  });

  it("cannot hide its edits from churn and patch, and none of its filters runs in the harness's git", () => {
    const row = rowOf("forge-oracle");
    const patch = patchOf(row);
    expect(patch).toContain("+// HIDDEN-EDIT: still not implemented");
    expect(patch).toContain('-test("double doubles", () => {');
    expect(patch).toContain("+// tests emptied");
    expect(patch).not.toContain("AGENT-FILTER-RAN-AFTER-SESSION");
    expect(patch).not.toContain("README.md");
    expect(row).toMatchObject({ diff_files: 2, diff_insertions: 2, diff_deletions: 8 });
  });

  it("counts a 2 GiB sparse file as a changed file and names it, instead of dying in git diff", () => {
    const row = rowOf("sparse-file");
    expect(row).toMatchObject({ ok: true, resolved: true, error_kind: null, diff_files: 2, diff_insertions: 1, diff_deletions: 0 });
    expect(toolResultsOf("sparse-file")).toContain("HUGE_BYTES=2147483648");
    const patch = patchOf(row);
    expect(patch.split("\n")[0]).toBe('# wfbench: "huge.bin" added, not diffed (2147483648 bytes, over the 8388608-byte per-file diff bound)');
    expect(patch).toContain("+export const twice = (x) => 2 * x;");
    expect(row["evidence_diagnostics"]).toEqual(['workspace entries counted as changed files but not diffed: "huge.bin" added, not diffed (2147483648 bytes, over the 8388608-byte per-file diff bound)']);
  });

  it("counts a nested repository (which made git add fail outright) as a changed file and names it", () => {
    const row = rowOf("nested-repo");
    expect(row).toMatchObject({ ok: true, error_kind: null, diff_files: 2 });
    expect(patchOf(row)).toContain('# wfbench: "vendor/impl" added, not diffed (a nested git repository)\n');
    expect(row["evidence_diagnostics"]).toEqual(['workspace entries counted as changed files but not diffed: "vendor/impl" added, not diffed (a nested git repository)']);
  });
});
