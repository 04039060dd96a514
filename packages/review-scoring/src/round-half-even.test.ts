import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { roundHalfEven6 } from "./round-half-even.js";
import { refRound6 } from "../test/reference-scorer.js";

describe("roundHalfEven6", () => {
  it.each([
    [1 / 128, 0.007812],
    [3 / 128, 0.023438],
    [0.5, 0.5],
    [2 / 3, 0.666667],
    [0.0000005, 0],
    [0.0000015, 0.000002],
    [0.1234565, 0.123456],
    [1, 1],
    [0, 0],
    [-1 / 128, -0.007812],
  ])("rounds %d to %d", (x, expected) => {
    expect(roundHalfEven6(x)).toBe(expected);
  });

  it("differs from naive Math.round on exact ties", () => {
    expect(Math.round((1 / 128) * 1e6) / 1e6).toBe(0.007813);
  });

  it("passes non-finite values through", () => {
    expect(roundHalfEven6(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(roundHalfEven6(Number.NaN)).toBeNaN();
  });

  it("agrees with an independent decimal-expansion rounding on ratios", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 5000 }), (n, d) => {
        const x = Math.min(n, d) / d;
        expect(roundHalfEven6(x)).toBe(refRound6(x));
      }),
      { numRuns: 2000 },
    );
  });
});
