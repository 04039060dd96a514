import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchReviewFindings } from "./match-findings.js";
import type { ReviewScore } from "./schema.js";
import { scoreReview } from "./score-review.js";
import { findingsArb, labelsArb, verdictArb } from "../test/arbitraries.js";
import { bruteForceMaxMatching, refScore } from "../test/reference-scorer.js";

const RATIO_KEYS = [
  "precision", "recall", "f1", "weighted_precision", "weighted_recall", "weighted_f1", "blocker_recall",
  "severity_accuracy", "category_accuracy", "grounded_evidence",
] as const satisfies readonly (keyof ReviewScore)[];

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe("scoreReview properties", () => {
  it("matches as many pairs as a brute-force maximum on small random cases", () => {
    fc.assert(
      fc.property(findingsArb(6, 8), labelsArb(6, 8), (findings, labels) => {
        expect(matchReviewFindings(findings, labels).pairs).toHaveLength(bruteForceMaxMatching(findings, labels));
      }),
      { numRuns: 400 },
    );
  });

  it("never changes any score when findings or labels are reordered", () => {
    fc.assert(
      fc.property(verdictArb, findingsArb(12), labelsArb(12), fc.integer(), (verdict, findings, labels, seed) => {
        const base = scoreReview(verdict, findings, labels);
        expect(scoreReview(verdict, shuffled(findings, seed), shuffled(labels, seed ^ 0x5bd1e995))).toEqual(base);
        expect(scoreReview(verdict, [...findings].reverse(), [...labels].reverse())).toEqual(base);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every score finite, in range and consistent with the counts", () => {
    fc.assert(
      fc.property(verdictArb, findingsArb(15, 30), labelsArb(15, 30), (verdict, findings, labels) => {
        const score = scoreReview(verdict, findings, labels);
        expect(score.true_positives + score.false_positives).toBe(findings.length);
        expect(score.true_positives + score.false_negatives).toBe(labels.length);
        expect(score.true_positives).toBeLessThanOrEqual(Math.min(findings.length, labels.length));
        for (const key of RATIO_KEYS) {
          const value = score[key];
          if (value === null) continue;
          expect(Number.isFinite(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
          expect(Math.round(value * 1e6) / 1e6).toBeCloseTo(value, 12);
        }
        expect(score.score_finite).toBe(true);
        expect(score.precision === null).toBe(findings.length === 0);
        expect(score.recall === null).toBe(labels.length === 0);
        expect(score.f1 === null).toBe(labels.length === 0);
      }),
      { numRuns: 300 },
    );
  });

  it("agrees exactly with an independent reference implementation on random cases", () => {
    fc.assert(
      fc.property(verdictArb, findingsArb(14, 16), labelsArb(14, 16), (verdict, findings, labels) => {
        expect(scoreReview(verdict, findings, labels)).toEqual(refScore(verdict, findings, labels));
      }),
      { numRuns: 500 },
    );
  });
});
