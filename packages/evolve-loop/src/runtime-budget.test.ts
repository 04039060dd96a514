import { describe, expect, it } from "vitest";
import { isEvolveLoopError } from "./errors.js";
import { instanceWindowBudgetSeconds, MIN_PAID_STEP_SECONDS, startRuntimeBudget } from "./runtime-budget.js";

describe("instanceWindowBudgetSeconds", () => {
  it("is int(window − uptime − reserve) with the §2.2 defaults", () => {
    expect(instanceWindowBudgetSeconds("1000.75 3000.00\n")).toBe(86_400 - 1000 - 5400 - 1);
    expect(instanceWindowBudgetSeconds("100.00 1.00", 10_000, 0)).toBe(9900);
  });

  it("refuses text that is not /proc/uptime", () => {
    for (const text of ["", "abc", "12", "-5 3", "1 2 3"]) {
      let caught: unknown;
      try {
        instanceWindowBudgetSeconds(text);
      } catch (error) {
        caught = error;
      }
      expect(isEvolveLoopError(caught) && caught.code === "EVOLVE_LOOP_BAD_UPTIME").toBe(true);
    }
  });
});

describe("startRuntimeBudget", () => {
  it("has no limit without a cap", () => {
    const budget = startRuntimeBudget(null, 0);
    expect(budget.remainingSeconds(1e12)).toBe(Number.POSITIVE_INFINITY);
    expect(budget.refusePaidStep(1e12, "the proposer")).toBeNull();
    expect(budget.clampTimeoutSeconds(1e12, 5400)).toBe(5400);
  });

  it("refuses a paid step with under 600 s left and clamps timeouts to what is left", () => {
    const budget = startRuntimeBudget(1000, 5_000);
    expect(budget.refusePaidStep(5_000, "the proposer")).toBeNull();
    expect(budget.clampTimeoutSeconds(5_000, 5400)).toBe(1000);
    // 400.5 s later: 599.5 s left, below the floor.
    expect(budget.refusePaidStep(5_000 + 400_500, "the sweep")).toMatch(/^the sweep not started: 599 s .* at least 600 s$/u);
    expect(budget.refusePaidStep(5_000 + 400_000, "the sweep")).toBeNull();
    expect(budget.clampTimeoutSeconds(5_000 + 400_500, 5400)).toBe(599);
    expect(budget.clampTimeoutSeconds(5_000 + 400_500, 30)).toBe(30);
    expect(budget.remainingSeconds(5_000 + 2_000_000)).toBe(0);
    expect(budget.clampTimeoutSeconds(5_000 + 2_000_000, 30)).toBe(0);
    expect(MIN_PAID_STEP_SECONDS).toBe(600);
  });

  it("refuses a cap that is not a positive whole number", () => {
    for (const cap of [0, -1, 1.5, Number.NaN]) expect(() => startRuntimeBudget(cap, 0)).toThrow(/positive whole number/u);
  });
});
