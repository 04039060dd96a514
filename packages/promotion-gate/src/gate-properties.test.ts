import fc from "fast-check";
import stableStringify from "fast-json-stable-stringify";
import { describe, expect, it } from "vitest";
import { makeAggregate, makeReviewAggregate } from "../test/support/aggregates.js";
import { aggregateByTaskArm } from "./aggregate.js";
import { buildCandidatePolicy, buildPromotionEvidence } from "./build-promotion-evidence.js";
import { ERROR_KINDS } from "@wfbench/result-row";
import { evaluateImplementationCandidate } from "./evaluate-implementation-candidate.js";
import { evaluateReviewCandidate } from "./evaluate-review-candidate.js";
import type { Aggregate, ImplementationPolicy, GateRow, ReviewPolicy } from "./schema.js";

const ARMS = ["workflow", "candidate_workflow", "review", "candidate_review"] as const;

const rowArbitrary = fc.record({
  task: fc.constantFrom("t-a", "t-b", "t-c"),
  arm: fc.constantFrom(...ARMS),
  error_kind: fc.option(fc.constantFrom(...ERROR_KINDS), { freq: 2 }),
  resolved: fc.boolean(),
  reused: fc.boolean(),
  transcript_missing: fc.boolean(),
  cost_usd: fc.option(fc.integer({ min: 0, max: 500 }).map((cents) => cents / 100), { freq: 8 }),
  output_tokens: fc.integer({ min: 0, max: 5000 }),
  review_weighted_f1: fc.option(fc.integer({ min: 0, max: 100 }).map((v) => v / 100), { freq: 6 }),
  review_blocker_recall: fc.option(fc.constantFrom(0, 0.5, 1), { freq: 4 }),
  review_false_positives: fc.integer({ min: 0, max: 3 }),
  review_verdict_correct: fc.boolean(),
  review_clean_control: fc.boolean(),
  review_clean_pass: fc.boolean(),
});

type RawRow = typeof rowArbitrary extends fc.Arbitrary<infer T> ? T : never;

function toRow(raw: RawRow): GateRow {
  const isReview = raw.arm.includes("review");
  const base: GateRow = {
    task: raw.task,
    arm: raw.arm,
    class: `class-of-${raw.task}`,
    error_kind: raw.error_kind,
    // A row a writer can produce: resolved only without an error kind (§4.2; the gate refuses impossible aggregates).
    resolved: raw.resolved && raw.error_kind === null,
    reused: raw.reused,
    transcript_missing: raw.transcript_missing,
    cost_usd: raw.cost_usd,
    output_tokens: raw.output_tokens,
  };
  if (!isReview) return base;
  return {
    ...base,
    review_weighted_f1: raw.review_weighted_f1,
    review_blocker_recall: raw.review_blocker_recall,
    review_false_positives: raw.review_false_positives,
    review_verdict_correct: raw.review_verdict_correct,
    review_clean_control: raw.review_clean_control,
    review_clean_pass: raw.review_clean_pass,
  };
}

const policy = {
  candidate_workflow: buildCandidatePolicy("candidate_workflow", { metric: "cost_usd", minRuns: 2 }),
  candidate_review: buildCandidatePolicy("candidate_review", { minRuns: 2 }),
};

describe("row order", () => {
  it("never changes a decision", () => {
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { minLength: 1, maxLength: 60 }).chain((raws) =>
          fc.tuple(fc.constant(raws.map(toRow)), fc.shuffledSubarray(raws.map(toRow), { minLength: raws.length, maxLength: raws.length })),
        ),
        ([rows, shuffled]) => {
          const left = buildPromotionEvidence({ results: aggregateByTaskArm(rows), policy, model: "m", complete: true });
          const right = buildPromotionEvidence({ results: aggregateByTaskArm(shuffled), policy, model: "m", complete: true });
          expect(stableStringify(right)).toBe(stableStringify(left));
        },
      ),
      { numRuns: 300 },
    );
  });
});

// An independent reading of reference §5.3: flags computed per task as data, then the lexicographic decision.
function referenceImplementationDecision(results: Record<string, Record<string, Aggregate>>, p: ImplementationPolicy, model: string | null): string {
  const metric = p.metric;
  const tasks = Object.keys(results).sort();
  let insufficient = !model || model.trim().length === 0;
  let regression = false;
  const paired = tasks.filter((task) => results[task]?.["workflow"] && results[task]?.["candidate_workflow"]);
  if (paired.length !== tasks.length) insufficient = true;
  const gatedImprovements: number[] = [];
  let gated = 0;
  let margin = 0;
  for (const task of paired) {
    const inc = results[task]!["workflow"]!;
    const cand = results[task]!["candidate_workflow"]!;
    margin += cand.resolved - inc.resolved;
    const im = inc[metric];
    const cm = cand[metric];
    const imp = im === null || cm === null || im === 0 ? null : Math.round(((100 * (im - cm)) / im) * 10) / 10;
    const full = inc.valid_runs >= p.min_runs && cand.valid_runs === inc.valid_runs && inc.excluded_runs + cand.excluded_runs === 0;
    const attributable = "skill-not-invoked" in inc.error_kinds || "skill-not-invoked" in cand.error_kinds;
    const isGated = !(full && inc.resolved === 0 && cand.resolved === 0 && !attributable && imp !== null);
    if (!isGated) {
      if (imp !== null && imp < -100) regression = true;
      continue;
    }
    gated += 1;
    if (!full) insufficient = true;
    const incRate = inc.valid_runs ? inc.resolved / inc.valid_runs : 0;
    const candRate = cand.valid_runs ? cand.resolved / cand.valid_runs : 0;
    if (candRate < incRate) regression = true;
    if ((inc.resolved > 0 || attributable) && cand.resolved < cand.valid_runs) regression = true;
    if (imp === null) insufficient = true;
    else {
      if (imp < -p.max_task_regression_pct) regression = true;
      gatedImprovements.push(imp);
    }
  }
  if (gated === 0 || gated * 2 < paired.length) insufficient = true;
  if (insufficient) return "insufficient_evidence";
  if (regression) return "keep_incumbent";
  if (margin >= 2) return "promote";
  const sorted = [...gatedImprovements].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(median * 10) / 10 >= p.min_improvement_pct ? "promote" : "keep_incumbent";
}

// An independent reading of reference §5.4.
function referenceReviewDecision(results: Record<string, Record<string, Aggregate>>, p: ReviewPolicy, model: string | null): string {
  let insufficient = !model;
  let regression = false;
  let improved = false;
  const tasks = Object.keys(results);
  if (tasks.length === 0) insufficient = true;
  for (const task of tasks) {
    const inc = results[task]?.["review"];
    const cand = results[task]?.["candidate_review"];
    if (!inc || !cand) {
      insufficient = true;
      continue;
    }
    if (Math.min(inc.valid_runs, cand.valid_runs) < p.min_runs || inc.valid_runs !== cand.valid_runs || inc.excluded_runs || cand.excluded_runs) insufficient = true;
    const isClean = inc.review_clean_control ?? cand.review_clean_control ?? false;
    const needed = isClean
      ? [inc.review_false_positives, cand.review_false_positives, inc.review_clean_pass, cand.review_clean_pass]
      : [inc.review_weighted_f1, cand.review_weighted_f1, inc.review_false_positives, cand.review_false_positives];
    if (needed.some((value) => value === null || value === undefined)) {
      insufficient = true;
      continue;
    }
    if (cand.review_verdict_correct == null) insufficient = true;
    else if (!cand.review_verdict_correct) regression = true;
    const ib = inc.review_blocker_recall ?? null;
    const cb = cand.review_blocker_recall ?? null;
    if ((ib === null) !== (cb === null)) insufficient = true;
    else if (ib !== null && cb !== null && cb < ib) regression = true;
    if (isClean) {
      if (cand.review_false_positives! > inc.review_false_positives!) regression = true;
      if (inc.review_clean_pass === true && cand.review_clean_pass === false) regression = true;
    } else if (cand.review_weighted_f1! + 1e-9 < inc.review_weighted_f1!) regression = true;
    else if (cand.review_weighted_f1! >= inc.review_weighted_f1! + p.min_improvement) improved = true;
  }
  if (insufficient) return "insufficient_evidence";
  if (regression || !improved) return "keep_incumbent";
  return "promote";
}

// Integer-valued metrics and .1 steps keep the reference's naive rounding away from exact binary ties.
const sideArbitrary = fc
  .record({
    valid: fc.integer({ min: 1, max: 4 }),
    excluded: fc.constantFrom(0, 0, 0, 1),
    resolvedShare: fc.integer({ min: 0, max: 4 }),
    cost: fc.option(fc.integer({ min: 0, max: 40 }).map((v) => v * 8), { freq: 8 }),
    skillNotInvoked: fc.constantFrom(false, false, false, true),
    f1: fc.option(fc.integer({ min: 0, max: 20 }).map((v) => v / 20), { freq: 8 }),
    blocker: fc.option(fc.constantFrom(0, 0.5, 1), { freq: 4 }),
    fp: fc.integer({ min: 0, max: 2 }),
    verdict: fc.option(fc.boolean(), { freq: 6 }),
    cleanPass: fc.option(fc.boolean(), { freq: 6 }),
  })
  .map((s) => ({ ...s, resolved: Math.min(s.resolvedShare, s.valid) }));

describe("independent implementation of the gates", () => {
  it("agrees on the implementation decision for random evidence", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.tuple(fc.option(sideArbitrary, { freq: 12 }), sideArbitrary), { minKeys: 0, maxKeys: 6 }),
        fc.option(fc.constantFrom("m", " "), { freq: 8 }),
        fc.integer({ min: 1, max: 3 }),
        (tasks, model, minRuns) => {
          const results: Record<string, Record<string, Aggregate>> = {};
          for (const [task, [inc, cand]] of Object.entries(tasks)) {
            const side = (s: NonNullable<typeof inc>): Aggregate =>
              makeAggregate({
                runs: s.valid + s.excluded,
                valid_runs: s.valid,
                resolved: s.resolved,
                cost_usd: s.cost,
                error_kinds: s.skillNotInvoked ? { "skill-not-invoked": 1 } : {},
              });
            results[task] = { candidate_workflow: side(cand), ...(inc ? { workflow: side(inc) } : {}) };
          }
          const p = buildCandidatePolicy("candidate_workflow", { minRuns }) as ImplementationPolicy;
          const actual = evaluateImplementationCandidate({ results, incumbentArm: "workflow", candidateArm: "candidate_workflow", policy: p, model });
          expect(actual.decision).toBe(referenceImplementationDecision(results, p, model));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("agrees on the review decision for random evidence", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("a", "b", "c", "d"), fc.tuple(fc.option(sideArbitrary, { freq: 12 }), sideArbitrary, fc.boolean()), { minKeys: 0, maxKeys: 4 }),
        fc.option(fc.constant("m"), { freq: 8 }),
        (tasks, model) => {
          const results: Record<string, Record<string, Aggregate>> = {};
          for (const [task, [inc, cand, isClean]] of Object.entries(tasks)) {
            const side = (s: NonNullable<typeof inc>): Aggregate =>
              makeReviewAggregate({
                runs: s.valid + s.excluded,
                valid_runs: s.valid,
                resolved: s.resolved,
                review_weighted_f1: s.f1,
                review_blocker_recall: s.blocker,
                review_false_positives: s.fp,
                review_verdict_correct: s.verdict,
                review_clean_control: isClean,
                review_clean_pass: s.cleanPass,
              });
            results[task] = { candidate_review: side(cand), ...(inc ? { review: side(inc) } : {}) };
          }
          const p = buildCandidatePolicy("candidate_review", { minRuns: 2 }) as ReviewPolicy;
          const actual = evaluateReviewCandidate({ results, incumbentArm: "review", policy: p, model });
          expect(actual.decision).toBe(referenceReviewDecision(results, p, model));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
