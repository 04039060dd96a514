import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_KINDS } from "@wfbench/result-row";
import { makeAggregate, makeReviewAggregate } from "../test/support/aggregates.js";
import { aggregate } from "./aggregate.js";
import { checkAggregate } from "./check-aggregate.js";
import type { Aggregate, GateRow } from "./schema.js";

describe("checkAggregate", () => {
  it("accepts the fixtures' consistent aggregates", () => {
    expect(checkAggregate(makeAggregate())).toBeNull();
    expect(checkAggregate(makeReviewAggregate())).toBeNull();
    expect(checkAggregate(makeAggregate({ runs: 4, excluded_runs: 1, resolved: 2, error_kinds: { "session-error": 1, "verify-failed": 1 }, execution_failures: 1, admissible: 3 }))).toBeNull();
  });

  it.each<[Partial<Aggregate>, string]>([
    [{ runs: 3, valid_runs: 3, excluded_runs: 1 }, "runs"],
    [{ resolved: 4 }, "resolved"],
    [{ fresh_attempts: 4 }, "fresh_attempts"],
    [{ resolved: 1, resolved_fresh: 2 }, "resolved_fresh"],
    [{ fresh_attempts: 1, admissible: 1, resolved_fresh: 2 }, "resolved_fresh"],
    [{ execution_failures: 4 }, "execution_failures"],
    [{ evidence_failures: 4 }, "evidence_failures"],
    [{ execution_failures: 1, error_kinds: { "infra-error": 1 }, runs: 3, excluded_runs: 1, resolved: 2 }, "admissible"],
    [{ evidence_failures: 1, resolved: 2, error_kinds: { "skill-not-invoked": 1 } }, "admissible"],
    [{ transcripts_missing: 4 }, "transcripts_missing"],
    [{ error_kinds: { "verify-failed": 0 } }, "error_kinds.verify-failed"],
    [{ error_kinds: { "verify-failed": 4 } }, "error_kinds.verify-failed"],
    [{ error_kinds: { "verify-failed": 2, "oracle-failed": 2 } }, "error_kinds"],
    [{ error_kinds: { "made-up": 1 } }, "error_kinds.made-up"],
    [{ error_kinds: { cancelled: 1 } }, "excluded_runs"],
    [{ runs: 3, excluded_runs: 1, resolved: 2, error_kinds: { "evidence-unverified": 1 }, execution_failures: 1, admissible: 2 }, "execution_failures"],
  ])("refuses %j naming %s", (overrides, field) => {
    expect(checkAggregate(makeAggregate(overrides))?.field).toBe(field);
  });

  // The invariants are definitions, not policy: whatever rows a writer can produce, aggregate() satisfies them.
  it("accepts every aggregate built from rows a writer can produce", () => {
    const rowArbitrary = fc
      .record({
        error_kind: fc.option(fc.constantFrom(...ERROR_KINDS), { freq: 2 }),
        resolved: fc.boolean(),
        reused: fc.boolean(),
        transcript_missing: fc.boolean(),
        review_evidence_valid: fc.option(fc.boolean(), { freq: 3 }),
      })
      .map(
        (raw): GateRow => ({
          task: "t",
          arm: "review",
          class: "c",
          error_kind: raw.error_kind,
          // Resolved rows carry no error kind and valid review evidence (§4.2); reused rows are never excluded (§5.6).
          resolved: raw.resolved && raw.error_kind === null && raw.review_evidence_valid !== false,
          reused: raw.reused && raw.error_kind === null && raw.review_evidence_valid !== false,
          transcript_missing: raw.transcript_missing,
          review_evidence_valid: raw.review_evidence_valid,
        }),
      );
    fc.assert(
      fc.property(fc.array(rowArbitrary, { minLength: 1, maxLength: 30 }), (rows) => {
        expect(checkAggregate(aggregate(rows))).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });
});

describe("checkAggregate: audit findings", () => {
  it.each<[Partial<Aggregate>, string]>([
    [{ cost_usd: -0.5 }, "cost_usd"],
    [{ cost_usd: Number.NaN }, "cost_usd"],
    [{ cli_cost_usd: Number.POSITIVE_INFINITY }, "cli_cost_usd"],
    [{ output_tokens: -1 }, "output_tokens"],
    [{ duration_s: Number.NEGATIVE_INFINITY }, "duration_s"],
    [{ num_turns: Number.NaN }, "num_turns"],
    [{ diff_files: -2 }, "diff_files"],
  ])("refuses a negative or non-finite measurement (%o → %s)", (overrides, field) => {
    expect(checkAggregate(makeAggregate(overrides))?.field).toBe(field);
  });

  it("refuses a negative or non-finite review metric", () => {
    expect(checkAggregate(makeReviewAggregate({ review_weighted_f1: -0.1 }))?.field).toBe("review_weighted_f1");
    expect(checkAggregate(makeReviewAggregate({ review_false_positives: Number.NaN }))?.field).toBe("review_false_positives");
  });
});
