import { describe, expect, it } from "vitest";
import { buildSweepPromotion, type SweepPromotionInput } from "./build-sweep-promotion.js";

function input(overrides: Partial<SweepPromotionInput> = {}): SweepPromotionInput {
  return {
    rows: [],
    arms: ["workflow", "candidate_workflow"],
    thresholds: { metric: "output_tokens", minRuns: 3, minImprovementPct: 10, maxTaskRegressionPct: 5 },
    model: "claude-sonnet-4-5-20250929",
    effort: "medium",
    overlayPath: "/overlays/work-v2",
    overlayDigest: `sha256:${"a".repeat(64)}`,
    targetBaseDigests: {},
    selectedTasks: [],
    complete: false,
    now: new Date("2026-12-03T00:00:00.000Z"),
    ...overrides,
  };
}

describe("buildSweepPromotion", () => {
  it("records the sweep's --proposer-model and marks the candidate as proposed", () => {
    const promotion = buildSweepPromotion(input({ proposerModel: "claude-opus-4-1-20250805" }));
    expect(promotion.proposer_model).toBe("claude-opus-4-1-20250805");
    expect(promotion.candidate_origin).toBe("model-proposer");
  });

  it("marks a manual overlay when the sweep had no proposer model", () => {
    for (const promotion of [buildSweepPromotion(input({ proposerModel: null })), buildSweepPromotion(input())]) {
      expect(promotion.proposer_model).toBeNull();
      expect(promotion.candidate_origin).toBe("manual-initial-overlay");
    }
  });
});
