import { describe, expect, it } from "vitest";
import { reconcileCost } from "./reconcile-cost.js";

describe("reconcileCost", () => {
  it.each<[string, number | null, number | null, number | null, boolean]>([
    ["equal figures agree", 0.0123, 0.0123, 0, false],
    ["a 5% gap is not above the threshold", 0.105, 0.1, 0.05, false],
    ["a gap just above 5% is flagged", 0.10501, 0.1, 0.0501, true],
    ["a CLI figure below the record counts the same way", 0.09, 0.1, 0.1, true],
    ["a CLI that reports 0 behind the proxy disagrees fully", 0, 0.2, 1, true],
    ["both 0 agree", 0, 0, 0, false],
    ["a record of 0 beside a CLI figure has no finite ratio and is flagged", 0.01, 0, null, true],
    ["an unpriced wire cost stays unknown, never 0", 0.01, null, null, false],
    ["an unknown CLI cost stays unknown", null, 0.01, null, false],
  ])("%s", (_name, cli, wire, ratio, flagged) => {
    const got = reconcileCost(cli, wire);
    expect(got.cost_disagreement_flagged).toBe(flagged);
    if (ratio === null) expect(got.cost_disagreement_ratio).toBeNull();
    else expect(got.cost_disagreement_ratio).toBeCloseTo(ratio, 6);
  });
});
