// Reference §6.6 through the whole runner: a workflow plan session that writes its one plan document *and* edits a
// source file breaks the plan-phase boundary. Real CLI, bwrap, git and gateway; the evidence read here is the row, the
// scripted model's request log (which trajectories were asked for) and report.md.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/plan-boundary", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

interface Turn {
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

const base = mkdtempSync(join(tmpdir(), "wfbench-plan-boundary-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow", "--out", out];
  result = await runRunner(args);
  rows = readResultRows(out);
}, 90_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

function planTrajectory(): Turn[] {
  const script = parse(readFileSync(join(FIXTURE, "script.yaml"), "utf8")) as { trajectories: { name: string; turns: Turn[] }[] };
  const turns = script.trajectories.find((t) => t.name === "plan-overreach-plan")?.turns ?? [];
  expect(turns.length).toBeGreaterThan(0);
  return turns;
}

describe.skipIf(tools.skip)("a workflow plan session that also edits a source file", () => {
  it("fails the cell as plan-evidence-invalid, naming the unauthorized path", () => {
    // plan-evidence-invalid is admissible (a valid negative, counted in medians): the sweep itself exits 0.
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, unknown>;
    expect(row).toMatchObject({ task: "plan-overreach", arm: "workflow", error_kind: "plan-evidence-invalid", ok: false, resolved: false, plan_produced: true, skill_invoked: true });
    expect(row["error_detail"]).toMatch(/unauthorized workspace path\(s\): .*src\/math\.js/u);
    expect(row["error_detail"]).not.toMatch(/docs\/plans\/boundary\.md/u);
  });

  it("never ran the work session: one session in the row, only plan requests at the model and the gateway", () => {
    const row = rows[0] as Record<string, unknown>;
    const turns = planTrajectory();
    expect(row["session_ids"]).toHaveLength(1);
    const artifacts = row["transcript_artifacts"] as { path: string; sha256: string }[];
    expect(artifacts).toHaveLength(1);
    for (const artifact of artifacts) expect(createHash("sha256").update(readFileSync(join(out, artifact.path))).digest("hex")).toBe(artifact.sha256);
    expect(readFileSync(join(out, (artifacts[0] as { path: string }).path), "utf8")).not.toContain("WORK-SESSION-RAN");

    const requests = readFileSync(join(out, "scripted-model-requests.jsonl"), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { trajectory: string | null });
    expect(requests.map((r) => r.trajectory)).toEqual(turns.map(() => "plan-overreach-plan"));
    expect(row["wire_requests"]).toBe(turns.length);
    expect(row).toMatchObject({
      input_tokens: turns.reduce((n, t) => n + t.usage.input_tokens, 0),
      output_tokens: turns.reduce((n, t) => n + t.usage.output_tokens, 0),
      wire_input_tokens: turns.reduce((n, t) => n + t.usage.input_tokens, 0),
      wire_output_tokens: turns.reduce((n, t) => n + t.usage.output_tokens, 0),
    });
  });

  it("keeps the overreach in the patch and counts the row in report.md", () => {
    const row = rows[0] as Record<string, unknown>;
    expect(row["diff_files"]).toBe(1);
    expect(readFileSync(join(out, row["patch_artifact"] as string), "utf8")).toContain("+// PLAN-PHASE-OVERREACH: implemented during planning.");
    const turns = planTrajectory();
    const sum = (pick: (t: Turn) => number): number => turns.reduce((n, t) => n + pick(t), 0);
    const report = readFileSync(join(out, "report.md"), "utf8");
    const line = report.split("\n").find((l) => l.startsWith("| plan-overreach | probe | workflow |"));
    expect(line, report).toBeDefined();
    const cells = (line as string).split("|").map((c) => c.trim()).slice(1);
    expect(cells.slice(4, 8)).toEqual([
      String(sum((t) => t.usage.input_tokens)),
      String(sum((t) => t.usage.cache_creation_input_tokens ?? 0)),
      String(sum((t) => t.usage.cache_read_input_tokens ?? 0)),
      String(sum((t) => t.usage.output_tokens)),
    ]);
    expect(cells[3]).toBe("0/1");
    expect(line).toContain("plan-evidence-invalid\u00d71");
  });
});
