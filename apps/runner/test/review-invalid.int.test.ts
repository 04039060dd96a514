// Review cells through the whole runner (real CLI, bwrap, git, gateway) whose scripted reviewer leaves an unusable
// artifact: truncated JSON, or none at all. The artifact is parsed only after the session exited; either way the row
// is review-evidence-invalid with every review_* score field null, and the arm has no admissible run (exit 1).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flattenReviewScore } from "@wfbench/review-scoring";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/review-invalid", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-review-invalid-"));
const out = join(base, "out");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (tools.skip) return;
  // No --arms: the default arm list runs only `review` on review tasks.
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--out", out];
  result = await runRunner(args);
  rows = readResultRows(out);
}, 90_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("review cells with an unusable artifact", () => {
  it.skipIf(tools.skip)("run only the review arm and exit 1: the arm has no admissible run", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(1);
    expect(rows.map((row) => `${String(row["task"])}/${String(row["arm"])}`)).toEqual(["review-truncated/review", "review-unwritten/review"]);
    // Reference §5.8: one health line per checked arm, and the unusable one named with an undetermined cause.
    expect(result.stdout).toContain("[health] review: UNUSABLE (fresh 2, admissible 0, execution failures 0, evidence failures 2; reasons review-evidence-invalid)");
    expect(result.stderr).toContain("arm review produced no usable measurement this sweep. cause=undetermined");
  });

  it.skipIf(tools.skip)("turn truncated JSON into review-evidence-invalid with null scores, keeping the copied artifact", () => {
    const row = rows[0] ?? {};
    expect(row).toMatchObject({ ...flattenReviewScore(null), review_evidence_valid: false, error_kind: "review-evidence-invalid", skill_invoked: true, ok: true });
    expect(row).toMatchObject({ oracle_passed: false, oracle_output: "hidden review labels not fully matched", resolved: false, authored_tests_passed: true });
    expect(String(row["error_detail"])).toMatch(/^review output invalid: REVIEW_OUTPUT_NOT_JSON: /u);
    expect(row["review_artifact"]).toBe("review-truncated-review-run0.review.json");
    expect(readFileSync(join(out, "review-truncated-review-run0.review.json"), "utf8")).toBe('{"schema_version":1,"verdict":"request_changes","findings":[{"id":"x","severity":"high"');
  });

  it.skipIf(tools.skip)("turn a never-written artifact into review-evidence-invalid (verify fails too, the first kind wins)", () => {
    const row = rows[1] ?? {};
    expect(row).toMatchObject({ ...flattenReviewScore(null), error_kind: "review-evidence-invalid", review_artifact: null, authored_tests_passed: false, resolved: false });
    expect(String(row["error_detail"])).toMatch(/^review output invalid: REVIEW_OUTPUT_MISSING: /u);
  });

  it.skipIf(tools.skip)("leave both out of the report's medians and its review quality table", () => {
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toMatch(/\| review-truncated \| review-defect \| review \| 0\/0 \(1 excluded\) \|.*review-evidence-invalid×1 \|/u);
    expect(report).not.toContain("## Review quality");
    expect(report).toContain("2 run(s) hit session/infra errors or had unverifiable evidence and were excluded");
  });
});
