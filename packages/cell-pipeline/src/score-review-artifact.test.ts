import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { flattenReviewScore, parseLabels, parseReviewOutput, scoreReview } from "@wfbench/review-scoring";
import { REVIEW_ORACLE_OUTPUT, copyReviewArtifact, scoreReviewArtifact } from "./score-review-artifact.js";

const LABELS = Buffer.from(JSON.stringify({ schema_version: 1, findings: [{ id: "l1", severity: "high", path: "src/a.js", line_start: 10, line_end: 12, category: "correctness" }] }));
const finding = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: "f1",
  severity: "high",
  path: "src/a.js",
  line: 11,
  end_line: 11,
  category: "correctness",
  scenario: "s",
  evidence: "e",
  recommendation: "r",
  blocking: true,
  ...over,
});

const dirs: string[] = [];
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "score-review-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("scoreReviewArtifact", () => {
  it("scores a valid review exactly as review-scoring does and passes the oracle on a perfect match", () => {
    const d = dir();
    writeFileSync(join(d, "review-output.json"), JSON.stringify({ schema_version: 1, verdict: "request_changes", findings: [finding()] }));
    const outcome = scoreReviewArtifact(d, LABELS);
    const review = parseReviewOutput(join(d, "review-output.json"));
    const labels = parseLabels(LABELS);
    if (!review.ok || !labels.ok) throw new Error("fixture must parse");
    expect(outcome.fields).toEqual(flattenReviewScore(scoreReview(review.value.verdict, review.value.findings, labels.value.findings)));
    expect(outcome).toMatchObject({ oraclePassed: true, oracleOutput: REVIEW_ORACLE_OUTPUT.matched, invalid: null });
  });

  it("fails the oracle on a wrong verdict or a false positive, with a measured score", () => {
    const d = dir();
    writeFileSync(join(d, "review-output.json"), JSON.stringify({ schema_version: 1, verdict: "request_changes", findings: [finding(), finding({ id: "f2", path: "src/b.js" })] }));
    const outcome = scoreReviewArtifact(d, LABELS);
    expect(outcome).toMatchObject({ oraclePassed: false, oracleOutput: REVIEW_ORACLE_OUTPUT.notMatched, invalid: null });
    expect(outcome.fields).toMatchObject({ review_evidence_valid: true, review_true_positives: 1, review_false_positives: 1, review_false_negatives: 0 });
  });

  it.each([
    ["never written", (_d: string) => undefined, "REVIEW_OUTPUT_MISSING"],
    ["not JSON", (d: string) => writeFileSync(join(d, "review-output.json"), "{not json"), "REVIEW_OUTPUT_NOT_JSON"],
    ["a symlink", (d: string) => symlinkSync("/etc/passwd", join(d, "review-output.json")), "REVIEW_OUTPUT_SYMLINK"],
  ])("refuses an artifact that is %s: null score fields and a coded reason", (_name, make, code) => {
    const d = dir();
    make(d);
    const outcome = scoreReviewArtifact(d, LABELS);
    expect(outcome.invalid?.startsWith(`${code}:`)).toBe(true);
    expect(outcome.fields).toEqual(flattenReviewScore(null));
    expect(outcome.oraclePassed).toBe(false);
  });

  it("throws CELL_PIPELINE_REVIEW_LABELS_INVALID for labels that do not parse (a harness fault)", () => {
    expect(() => scoreReviewArtifact(dir(), Buffer.from("{}"))).toThrow(expect.objectContaining({ code: "CELL_PIPELINE_REVIEW_LABELS_INVALID" }));
  });
});

describe("copyReviewArtifact", () => {
  it("copies a regular file 0600 and refuses links, FIFOs and missing files", async () => {
    const d = dir();
    const out = dir();
    writeFileSync(join(d, "review-output.json"), '{"x":1}');
    expect(await copyReviewArtifact(d, out, "t.review.json")).toBe("t.review.json");
    expect(readFileSync(join(out, "t.review.json"), "utf8")).toBe('{"x":1}');
    expect(statSync(join(out, "t.review.json")).mode & 0o777).toBe(0o600);
    const linked = dir();
    symlinkSync(join(d, "review-output.json"), join(linked, "review-output.json"));
    expect(await copyReviewArtifact(linked, out, "l.review.json")).toBeNull();
    const fifo = dir();
    expect(spawnSync("mkfifo", [join(fifo, "review-output.json")]).status).toBe(0);
    expect(await copyReviewArtifact(fifo, out, "f.review.json")).toBeNull();
    expect(await copyReviewArtifact(dir(), out, "m.review.json")).toBeNull();
  });
});
