import { describe, expect, it } from "vitest";
import { makeReviewAggregate, reviewPolicy } from "../test/support/aggregates.js";
import { evaluateReviewCandidate } from "./evaluate-review-candidate.js";
import type { Aggregate, AggregatedResults } from "./schema.js";

type Pair = readonly [Partial<Aggregate>, Partial<Aggregate>];

function decide(pairs: Readonly<Record<string, Pair>>, model: string | null = "claude-x") {
  const results: Record<string, Record<string, Aggregate>> = {};
  for (const [task, [inc, cand]] of Object.entries(pairs)) {
    results[task] = { review: makeReviewAggregate(inc), candidate_review: makeReviewAggregate(cand) };
  }
  return evaluateReviewCandidate({ results: results as AggregatedResults, incumbentArm: "review", policy: reviewPolicy(), model });
}

const clean: Partial<Aggregate> = {
  class: "review-clean",
  review_clean_control: true,
  review_clean_pass: true,
  review_weighted_f1: null,
  review_blocker_recall: null,
  review_false_positives: 0,
};
const improved: Pair = [{ review_weighted_f1: 0.25 }, { review_weighted_f1: 0.26 }];

describe("evaluateReviewCandidate", () => {
  it.each<[string, Partial<Aggregate>, string]>([
    ["resolved above valid_runs", { runs: 3, excluded_runs: 1, resolved: 3 }, "resolved"],
    ["an evidence-failure count above the fresh attempts", { evidence_failures: 4 }, "evidence_failures"],
  ])("refuses a candidate with %s instead of deciding, naming the field", (_name, candidate, field) => {
    expect(() => decide({ d: [{ review_weighted_f1: 0.25 }, { review_weighted_f1: 0.5, ...candidate }] })).toThrow(
      expect.objectContaining({ code: "PROMOTION_AGGREGATE_INVALID", task: "d", arm: "candidate_review", field }),
    );
  });

  describe("weighted F1 improvement (exactly at and just under 0.01)", () => {
    it("promotes a gain of exactly 0.01", () => {
      const result = decide({ d: improved });
      expect(result.decision).toBe("promote");
      expect(result.reasons).toEqual([
        "d: weighted review score improved from 0.250 to 0.260",
        "improves weighted review quality on 1 corpus case(s) with no regression",
      ]);
    });
    it("keeps a gain just under 0.01", () => {
      const result = decide({ d: [{ review_weighted_f1: 0.25 }, { review_weighted_f1: 0.2599 }] });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toEqual(["did not improve weighted review quality on any corpus case"]);
    });
  });

  describe("weighted F1 regression (1e-9 tolerance)", () => {
    it("tolerates a drop below 1e-9", () => {
      expect(decide({ d: improved, e: [{ review_weighted_f1: 0.5 }, { review_weighted_f1: 0.5 - 5e-10 }] }).decision).toBe("promote");
    });
    it("refuses a drop beyond 1e-9", () => {
      const result = decide({ d: improved, e: [{ review_weighted_f1: 0.5 }, { review_weighted_f1: 0.5 - 2e-9 }] });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("e: weighted review score regressed from 0.500 to 0.500");
    });
  });

  it.each([
    ["verdict incorrect on a repeat", { review_verdict_correct: false }, "keep_incumbent", "d: candidate verdict was incorrect on a valid repeat"],
    ["verdict unavailable", { review_verdict_correct: null }, "insufficient_evidence", "d: candidate verdict correctness is unavailable"],
    ["lower minimum blocker recall", { review_blocker_recall: 0.5 }, "keep_incumbent", "d: minimum blocker recall regressed from 1.000 to 0.500"],
    ["blocker recall on one arm only", { review_blocker_recall: null }, "insufficient_evidence", "d: blocker recall was measured on only one arm"],
    ["candidate weighted F1 missing", { review_weighted_f1: null }, "insufficient_evidence", "d: review metrics unavailable: candidate weighted F1"],
    ["false positives missing", { review_false_positives: null }, "insufficient_evidence", "d: review metrics unavailable: candidate false positives"],
  ] as const)("%s on the candidate gives %s", (_name, candidate, decision, reason) => {
    const result = decide({ d: [{ review_weighted_f1: 0.25 }, { review_weighted_f1: 0.26, ...candidate }] });
    expect(result.decision).toBe(decision);
    expect(result.reasons).toContain(reason);
  });

  describe("clean controls", () => {
    it("passes an unchanged clean control", () => {
      const result = decide({ c: [clean, clean], d: improved });
      expect(result.decision).toBe("promote");
      expect(result.tasks[0]).toMatchObject({ clean_control: true, incumbent_clean_pass: true, candidate_clean_pass: true, gated: true });
    });
    it("refuses more false positives", () => {
      const result = decide({ c: [clean, { ...clean, review_false_positives: 0.5, review_clean_pass: true }], d: improved });
      expect(result.decision).toBe("keep_incumbent");
      expect(result.reasons).toContain("c: median false positives on a clean control rose from 0.0 to 0.5");
    });
    it("refuses a lost clean pass", () => {
      const result = decide({ c: [clean, { ...clean, review_clean_pass: false }], d: improved });
      expect(result.reasons).toContain("c: clean control no longer passes on every repeat");
      expect(result.decision).toBe("keep_incumbent");
    });
    it("needs clean pass on both arms", () => {
      expect(decide({ c: [clean, { ...clean, review_clean_pass: null }], d: improved }).decision).toBe("insufficient_evidence");
    });
    it("never counts a clean control as an improvement", () => {
      expect(decide({ c: [clean, clean] }).decision).toBe("keep_incumbent");
    });
  });

  describe("runs", () => {
    it.each([
      [{ runs: 2 }, { runs: 2 }],
      [{ runs: 3 }, { runs: 4 }],
      [{ runs: 4, excluded_runs: 1 }, { runs: 3 }],
    ] as const)("refuses %o against %o", (inc, cand) => {
      const result = decide({ d: [{ review_weighted_f1: 0.25, ...inc }, { review_weighted_f1: 0.26, ...cand }] });
      expect(result.decision).toBe("insufficient_evidence");
      expect(result.reasons.some((reason) => reason.includes("needs 3 valid paired runs with zero exclusions"))).toBe(true);
    });
  });

  it("needs a named model and paired tasks", () => {
    expect(decide({ d: improved }, null).decision).toBe("insufficient_evidence");
    expect(decide({}).reasons).toEqual(["no review task has results for both arms, so there is nothing to compare"]);
  });

  it("ignores cost and latency", () => {
    expect(decide({ d: [{ review_weighted_f1: 0.25 }, { review_weighted_f1: 0.26, cost_usd: 100, duration_s: 1e6 }] }).decision).toBe("promote");
  });

  it("has the decision keys of §4.6", () => {
    expect(Object.keys(decide({ d: improved })).sort()).toEqual(["candidate_arm", "decision", "incumbent_arm", "metric", "model", "reasons", "tasks", "ungated_tasks"]);
  });
});
