import stableStringify from "fast-json-stable-stringify";
import { describe, expect, it } from "vitest";
import { GENERATED_AT, makePromotionInput } from "../test/support/promotion.js";
import { ABORTED_SWEEP_REASON, buildCandidatePolicy } from "./build-promotion-evidence.js";
import { buildPromotion, serializePromotion } from "./build-promotion.js";
import { PromotionSchema } from "./schema.js";

describe("buildPromotion", () => {
  it("writes schema 6 with a 90-day expiry that its own zod schema accepts", () => {
    const promotion = buildPromotion(makePromotionInput());
    expect(PromotionSchema.parse(JSON.parse(JSON.stringify(promotion)))).toEqual(promotion);
    expect(promotion).toMatchObject({
      schema_version: 6,
      run_status: "complete",
      generated_at: "2026-07-25T12:00:00.000Z",
      evidence_expires_at: "2026-10-23T12:00:00.000Z",
      candidate_origin: "model-proposer",
      required_candidate_arms: ["candidate_workflow", "candidate_review"],
    });
    expect(promotion.decisions.map((decision) => [decision.candidate_arm, decision.incumbent_arm, decision.decision])).toEqual([
      ["candidate_workflow", "workflow", "promote"],
      ["candidate_review", "review", "promote"],
    ]);
  });

  it("keeps the reference's top-level key order", () => {
    expect(Object.keys(buildPromotion(makePromotionInput()))).toEqual([
      "generated_at",
      "evidence_expires_at",
      "benchmark_model",
      "proposer_model",
      "effort",
      "candidate_origin",
      "candidate_overlay",
      "candidate_overlay_digest",
      "target_base_digests",
      "required_candidate_arms",
      "selected_tasks",
      "ce_plugin",
      "schema_version",
      "run_status",
      "policy",
      "decisions",
    ]);
  });

  it("marks a manual overlay without a proposer model", () => {
    expect(buildPromotion(makePromotionInput({ proposerModel: null })).candidate_origin).toBe("manual-initial-overlay");
  });

  it("forces insufficient_evidence on an aborted sweep", () => {
    const promotion = buildPromotion(makePromotionInput({ complete: false }));
    expect(promotion.run_status).toBe("aborted");
    for (const decision of promotion.decisions) {
      expect(decision.decision).toBe("insufficient_evidence");
      expect(decision.reasons.at(-1)).toBe(ABORTED_SWEEP_REASON);
    }
  });

  it("records the policies of §4.6", () => {
    expect(buildCandidatePolicy("candidate_review")).toEqual({
      metric: "review_weighted_f1",
      min_runs: 3,
      min_improvement: 0.01,
      quality_rule: "correct verdict on every repeat; minimum blocker recall; no clean-control regression",
    });
    expect(buildCandidatePolicy("candidate_workflow_direct", { metric: "output_tokens", minRuns: 4 })).toEqual({
      metric: "output_tokens",
      min_runs: 4,
      min_improvement_pct: 5.0,
      max_task_regression_pct: 20.0,
      max_failed_task_regression_pct: 100.0,
      min_gated_task_ratio: 0.5,
      quality_rule: "no per-task resolution-rate regression",
    });
    expect(() => buildCandidatePolicy("workflow")).toThrow(expect.objectContaining({ code: "PROMOTION_UNKNOWN_ARM" }));
  });

  it("serialises canonically, independent of key insertion order", () => {
    const promotion = buildPromotion(makePromotionInput());
    const reordered = Object.fromEntries(Object.entries(promotion).reverse());
    expect(serializePromotion(reordered)).toBe(serializePromotion(promotion));
    expect(serializePromotion(promotion)).toBe(stableStringify(promotion));
  });

  it("reads no clock: the same input gives the same bytes", () => {
    expect(serializePromotion(buildPromotion(makePromotionInput({ now: GENERATED_AT })))).toBe(serializePromotion(buildPromotion(makePromotionInput())));
  });
});
