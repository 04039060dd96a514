import { describe, expect, it } from "vitest";
import type { Severity } from "./constants.js";
import { ReviewScoreInputError } from "./errors.js";
import { matchReviewFindings } from "./match-findings.js";
import { ReviewScoreSchema, type ReviewFinding, type ReviewLabel } from "./schema.js";
import { expectedVerdict, flattenReviewScore, isReviewOraclePassed, REVIEW_SCORE_KEYS, scoreReview } from "./score-review.js";
import { bruteForceMaxMatching } from "../test/reference-scorer.js";

function finding(id: string, over: Partial<ReviewFinding> = {}): ReviewFinding {
  return {
    id, severity: "high", path: "src/app.ts", line: 10, end_line: 10, category: "correctness",
    scenario: "when x", evidence: "line 10 does y", recommendation: "do z", blocking: true, ...over,
  };
}

function label(id: string, over: Partial<ReviewLabel> = {}): ReviewLabel {
  return { id, severity: "high", path: "src/app.ts", line_start: 10, line_end: 10, category: "correctness", ...over };
}

describe("scoreReview", () => {
  describe("eligibility", () => {
    it("matches one finding and counts noise: precision 0.5, recall 1, blocker recall 1, verdict correct", () => {
      const score = scoreReview(
        "request_changes",
        [finding("hit", { line: 9, end_line: 11 }), finding("noise", { path: "src/other.ts" })],
        [label("bug", { line_start: 11, line_end: 14 })],
      );
      expect(score).toMatchObject({
        true_positives: 1, false_positives: 1, false_negatives: 0, precision: 0.5, recall: 1,
        blocker_recall: 1, verdict_correct: true,
      });
    });

    it.each([
      ["touching the start", 5, 10, true],
      ["touching the end", 14, 20, true],
      ["ending just before", 1, 9, false],
      ["starting just after", 15, 15, false],
    ])("treats a range %s as %s", (_name, line, endLine, eligible) => {
      const score = scoreReview("comment", [finding("f", { line, end_line: endLine })], [label("l", { line_start: 10, line_end: 14 })]);
      expect(score.true_positives).toBe(eligible ? 1 : 0);
    });

    it("never matches across different normalised paths even on identical lines", () => {
      const score = scoreReview("comment", [finding("f", { path: "src/App.ts" })], [label("l")]);
      expect(score.true_positives).toBe(0);
      expect(score.f1).toBe(0);
    });
  });

  describe("matching", () => {
    it("gives 2 TP on the broad + tight label trap where a greedy category-first match gives 1", () => {
      // The first finding sits inside both labels and shares the broad label's category; the second only
      // reaches the broad label. Category-first greedy gives the broad label away and strands the second.
      const findings = [
        finding("a-tight", { line: 12, end_line: 12, category: "correctness" }),
        finding("b-late", { line: 30, end_line: 31, category: "security" }),
      ];
      const labels = [
        label("broad", { line_start: 1, line_end: 40, category: "correctness" }),
        label("tight", { line_start: 12, line_end: 12, category: "security" }),
      ];
      const greedy = greedyCount(findings, labels);
      expect(greedy).toBe(1);
      const score = scoreReview("request_changes", findings, labels);
      expect(score.true_positives).toBe(2);
      expect(score.false_positives + score.false_negatives).toBe(0);
    });

    it.each([2, 17, 100])("reaches maximum cardinality at size %i, also with reversed inputs", (size) => {
      // A staircase: finding i overlaps label i and label i+1 and shares label i+1's category, so rank order
      // first hands every finding the next label; only re-routing the whole chain matches the last finding.
      const categoryOf = (i: number): string => (i % 2 ? "b" : "a");
      const findings = Array.from({ length: size }, (_, i) => finding(`f${String(i).padStart(3, "0")}`, { line: 10 * i + 5, end_line: 10 * i + 20, category: categoryOf(i + 1) }));
      const labels = Array.from({ length: size }, (_, i) => label(`l${String(i).padStart(3, "0")}`, { line_start: 10 * i + 10, line_end: 10 * i + 12, category: categoryOf(i) }));
      expect(greedyCount(findings, labels)).toBe(size - 1);
      const forward = scoreReview("request_changes", findings, labels);
      const reversed = scoreReview("request_changes", [...findings].reverse(), [...labels].reverse());
      expect(forward.true_positives).toBe(size);
      expect(reversed).toEqual(forward);
    });

    it("handles asymmetric 2-vs-17 inputs in both directions", () => {
      const many = Array.from({ length: 17 }, (_, i) => i + 1);
      const twoFindings = [finding("f1", { line: 1, end_line: 17 }), finding("f2", { line: 1, end_line: 17 })];
      const seventeenLabels = many.map((n) => label(`l${n}`, { line_start: n, line_end: n }));
      expect(scoreReview("request_changes", twoFindings, seventeenLabels)).toMatchObject({ true_positives: 2, false_negatives: 15 });
      const seventeenFindings = many.map((n) => finding(`f${n}`, { line: n, end_line: n }));
      const twoLabels = [label("l1", { line_start: 1, line_end: 17 }), label("l2", { line_start: 1, line_end: 17 })];
      expect(scoreReview("request_changes", seventeenFindings, twoLabels)).toMatchObject({ true_positives: 2, false_positives: 15 });
    });

    it("finds a perfect matching in a dense 100x100 case where every pair is eligible", () => {
      const severities: Severity[] = ["critical", "high", "medium", "low"];
      const findings = Array.from({ length: 100 }, (_, i) => finding(`f${i}`, { line: 1, end_line: 1000, severity: severities[i % 4] as Severity, category: `c${i % 7}` }));
      const labels = Array.from({ length: 100 }, (_, i) => label(`l${i}`, { line_start: 1 + i, line_end: 1 + i, severity: severities[(i * 3) % 4] as Severity, category: `c${i % 5}` }));
      const score = scoreReview("request_changes", findings, labels);
      expect(score).toMatchObject({ true_positives: 100, false_positives: 0, false_negatives: 0, precision: 1, recall: 1, f1: 1 });
    });

    it("reports matched pairs that agree with a brute-force maximum", () => {
      const findings = [finding("x", { line: 1, end_line: 5 }), finding("y", { line: 4, end_line: 4 }), finding("z", { line: 9, end_line: 9 })];
      const labels = [label("p", { line_start: 4, line_end: 4 }), label("q", { line_start: 1, line_end: 2 })];
      const matching = matchReviewFindings(findings, labels);
      expect(matching.pairs).toHaveLength(bruteForceMaxMatching(findings, labels));
      expect(matching.pairs.map((pair) => [pair.actual.id, pair.expected.id])).toEqual([["x", "q"], ["y", "p"]]);
    });
  });

  describe("complete misses and clean controls", () => {
    it("scores an empty approve against labels as f1 = weighted_f1 = 0", () => {
      const score = scoreReview("approve", [], [label("bug")]);
      expect(score).toMatchObject({ f1: 0, weighted_f1: 0, precision: null, recall: 0, verdict_correct: false });
    });

    it("scores noise only against labels as f1 = weighted_f1 = 0", () => {
      const score = scoreReview("comment", [finding("n", { path: "elsewhere.ts" })], [label("bug")]);
      expect(score).toMatchObject({ f1: 0, weighted_f1: 0, precision: 0, recall: 0, weighted_precision: 0 });
    });

    it("gives a clean empty approve null ratios, clean_pass and a correct verdict", () => {
      const score = scoreReview("approve", [], []);
      expect(score).toMatchObject({
        weighted_f1: null, precision: null, recall: null, f1: null, blocker_recall: null, grounded_evidence: null,
        clean_control: true, clean_pass: true, verdict_correct: true, score_finite: true,
      });
    });

    it("flags a noisy comment on a clean control: fp 1, weighted_precision 0, recall null, no clean_pass", () => {
      const score = scoreReview("comment", [finding("n", { blocking: false })], []);
      expect(score).toMatchObject({
        false_positives: 1, weighted_precision: 0, recall: null, weighted_f1: null, clean_control: true,
        clean_pass: false, verdict_correct: false,
      });
    });
  });

  describe("severity weighting", () => {
    it("gives a downgraded blocker weighted_recall 0.2, blocker_recall 0 and an incorrect verdict", () => {
      const score = scoreReview("comment", [finding("f", { severity: "low", blocking: false })], [label("l", { severity: "high" })]);
      expect(score).toMatchObject({ weighted_recall: 0.2, blocker_recall: 0, verdict_correct: false, severity_accuracy: 0, true_positives: 1 });
    });

    it("caps an over-severe report at the label's weight", () => {
      const score = scoreReview("request_changes", [finding("f", { severity: "critical" }), finding("g", { path: "x.ts", severity: "low" })], [label("l", { severity: "medium" })]);
      // matched min(8, 2) = 2; false-positive weight 1; expected weight 2.
      expect(score).toMatchObject({ weighted_recall: 1, weighted_precision: 0.666667, weighted_f1: 0.8, blocker_recall: null });
    });

    it("rounds an exact tie to even: 1/128 becomes 0.007812", () => {
      const noise = [
        ...Array.from({ length: 15 }, (_, i) => finding(`n${i}`, { path: "q.ts", severity: "critical" })),
        finding("n15", { path: "q.ts", severity: "high" }),
        finding("n16", { path: "q.ts", severity: "medium" }),
      ];
      const score = scoreReview("comment", [finding("m", { severity: "low" }), ...noise], [label("l", { severity: "low" })]);
      expect(score.weighted_precision).toBe(0.007812);
    });

    it("credits blocker recall only for critical/high reports, never for the blocking flag", () => {
      const score = scoreReview(
        "request_changes",
        [finding("a", { severity: "medium", blocking: true }), finding("b", { line: 20, end_line: 20, severity: "critical", blocking: false })],
        [label("x"), label("y", { line_start: 20, line_end: 20, severity: "critical" }), label("z", { line_start: 30, line_end: 30, severity: "low" })],
      );
      expect(score.blocker_recall).toBe(0.5);
    });
  });

  describe("accuracy, grounding and verdicts", () => {
    it("measures severity and category agreement over matched pairs only", () => {
      const score = scoreReview(
        "request_changes",
        [finding("a"), finding("b", { line: 20, end_line: 20, category: "tests", severity: "medium" }), finding("c", { path: "other.ts", category: "tests" })],
        [label("x"), label("y", { line_start: 20, line_end: 20 })],
      );
      expect(score).toMatchObject({ severity_accuracy: 0.5, category_accuracy: 0.5, grounded_evidence: 1 });
    });

    it.each([
      [[], "approve"],
      [[label("a", { severity: "low" }), label("b", { severity: "medium", line_start: 3, line_end: 3 })], "comment"],
      [[label("a", { severity: "low" }), label("b", { severity: "critical", line_start: 3, line_end: 3 })], "request_changes"],
    ] as const)("expects the verdict for labels %j to be %s", (labels, verdict) => {
      expect(expectedVerdict(labels)).toBe(verdict);
      for (const given of ["approve", "comment", "request_changes"] as const) {
        expect(scoreReview(given, [], labels).verdict_correct).toBe(given === verdict);
      }
    });
  });

  describe("input trust", () => {
    it("throws ReviewScoreInputError for findings that did not come from the parser", () => {
      expect(() => scoreReview("comment", [finding("a", { path: "../escape.ts" })], [])).toThrow(ReviewScoreInputError);
      expect(() => scoreReview("comment", [finding("a"), finding("a")], [])).toThrow(/unique/);
      expect(() => scoreReview("comment", [], [label("l", { line_start: 5, line_end: 4 })])).toThrow(ReviewScoreInputError);
      expect(() => scoreReview("maybe" as "comment", [], [])).toThrow(ReviewScoreInputError);
    });
  });

  it("returns a value matching ReviewScoreSchema with exactly the flattened keys", () => {
    const score = scoreReview("request_changes", [finding("a")], [label("b")]);
    expect(ReviewScoreSchema.parse(score)).toEqual(score);
    expect(Object.keys(score).sort()).toEqual([...REVIEW_SCORE_KEYS].sort());
  });
});

describe("isReviewOraclePassed", () => {
  it("passes only with a score, no fp, no fn and a correct verdict", () => {
    expect(isReviewOraclePassed(scoreReview("request_changes", [finding("a")], [label("b")]))).toBe(true);
    expect(isReviewOraclePassed(scoreReview("comment", [finding("a", { blocking: false })], [label("b")]))).toBe(false);
    expect(isReviewOraclePassed(scoreReview("request_changes", [finding("a"), finding("c", { path: "z.ts" })], [label("b")]))).toBe(false);
    expect(isReviewOraclePassed(scoreReview("approve", [], [label("b")]))).toBe(false);
    expect(isReviewOraclePassed(scoreReview("approve", [], []))).toBe(true);
    expect(isReviewOraclePassed(null)).toBe(false);
  });
});

describe("flattenReviewScore", () => {
  it("prefixes every key and marks evidence validity", () => {
    const score = scoreReview("approve", [], []);
    const row = flattenReviewScore(score);
    expect(row["review_evidence_valid"]).toBe(true);
    expect(row["review_clean_pass"]).toBe(true);
    expect(row["review_score"]).toBe(score);
    for (const key of REVIEW_SCORE_KEYS) expect(row).toHaveProperty(`review_${key}`, score[key]);
    expect(flattenReviewScore(null)).toMatchObject({ review_evidence_valid: false, review_score: null, review_weighted_f1: null });
  });
});

// Category-first greedy over the same eligibility, used only to show the trap really traps a greedy scorer.
function greedyCount(findings: ReviewFinding[], labels: ReviewLabel[]): number {
  const taken = new Set<string>();
  let count = 0;
  for (const f of findings) {
    const options = labels
      .filter((l) => !taken.has(l.id) && l.path === f.path && f.line <= l.line_end && f.end_line >= l.line_start)
      .sort((x, y) => Number(y.category === f.category) - Number(x.category === f.category));
    const pick = options[0];
    if (pick !== undefined) {
      taken.add(pick.id);
      count++;
    }
  }
  return count;
}
