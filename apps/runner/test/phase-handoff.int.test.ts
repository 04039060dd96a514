// Issue 13 class 2 (and the plan-listing link of class 7) through the whole runner: a workflow plan session may hand
// the work session its plan document and nothing else. Real CLI, bwrap, git and gateway; the evidence is the rows, the
// scripted model's request log (which trajectories were asked for) and the transcripts the parent captured.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, listTaskTranscripts, probeRunnerTools, readResultRows, readToolResultTexts, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/phase-handoff", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-phase-handoff-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow", "--workers", "2", "--out", out];
  result = await runRunner(args);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

function rowOf(task: string): Record<string, unknown> {
  const row = rows.find((r) => r["task"] === task);
  expect(row, JSON.stringify(rows.map((r) => r["task"]))).toBeDefined();
  return row as Record<string, unknown>;
}

function requestedTrajectories(): string[] {
  return readFileSync(join(out, "scripted-model-requests.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => (JSON.parse(line) as { trajectory: string | null }).trajectory ?? "(unmatched)");
}

/** KEY=VALUE lines of the tool results in one cell's transcripts, as the parent captured them. */
function reportOf(task: string): Record<string, string[]> {
  const report: Record<string, string[]> = {};
  for (const text of listTaskTranscripts(out, task).flatMap(readToolResultTexts)) {
    for (const match of text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gmu)) (report[match[1] as string] ??= []).push(match[2] as string);
  }
  return report;
}

describe.skipIf(tools.skip)("a workflow plan session that hands the work session more than its plan", () => {
  it("ran every cell to a verdict (plan-evidence-invalid is admissible, so the sweep exits 0)", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((r) => r["task"]).sort()).toEqual(["handoff-home", "handoff-workspace", "plan-symlink"]);
  });

  it("fails the workspace hand-off by content: root 'noise' names, .claude and a nested .git are all named", () => {
    const row = rowOf("handoff-workspace");
    expect(row).toMatchObject({ error_kind: "plan-evidence-invalid", ok: false, resolved: false, plan_produced: true });
    const detail = String(row["error_detail"]);
    expect(detail).toMatch(/^phase changed unauthorized workspace path\(s\): /u);
    for (const path of [".claude/CLAUDE.md", ".claude/commands", ".env", ".npmrc", "node_modules", "package.json"]) expect(detail).toContain(path);
    expect(detail).not.toContain("docs/plans/handoff.md");
    expect(row["session_ids"]).toHaveLength(1);
    expect(requestedTrajectories()).not.toContain("handoff-workspace-work");
  });

  it("gives each session a fresh HOME and TMP and the work session a harness-built .git: nothing of the plan session's reaches it", () => {
    const row = rowOf("handoff-home");
    // The workspace itself only gained the plan: the CLI's own start-up writes are what the noise list allows.
    expect(row, String(row["error_detail"])).toMatchObject({ error_kind: null, ok: true, resolved: true, plan_produced: true });
    expect(row["session_ids"]).toHaveLength(2);
    const report = reportOf("handoff-home");
    expect(report).toMatchObject({
      HOME_HANDOFF: ["absent"],
      TMP_HANDOFF: ["absent"],
      USER_MEMORY: ["absent"],
      GIT_CONFIG_HANDOFF: ["absent"],
      GIT_REF_HANDOFF: ["absent"],
      GIT_HEAD: [row["variant_head_sha"]],
    });
    // The rebuilt .git holds the base commit and an index of it: only the plan document is untracked.
    expect(report["GIT_STATUS_LINES"]).toEqual(["1"]);
    // What the CLI leaves at start-up lives in the session's own HOME and TMP, which no later session gets.
    expect(report["HOME_ENTRIES"]?.[0]).toMatch(/\.\/\.claude\/\.claude\.json /u);
    expect(`${report["HOME_ENTRIES"]?.[0] ?? ""} ${report["TMP_ENTRIES"]?.[0] ?? ""}`).not.toMatch(/handoff|CLAUDE\.md/u);
    expect(readFileSync(join(out, row["patch_artifact"] as string), "utf8")).toContain("+export const clamp");
  });

  it("does not follow a planted docs link onto the host when listing plans", () => {
    const row = rowOf("plan-symlink");
    expect(row).toMatchObject({ error_kind: "plan-evidence-invalid", ok: false, resolved: false, plan_produced: false });
    expect(String(row["error_detail"])).toBe("plan directory holds links or special files: docs");
    expect(requestedTrajectories()).not.toContain("plan-symlink-work");
    expect(JSON.stringify(row)).not.toContain("host-only");
  });
});
