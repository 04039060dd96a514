import { describe, expect, it } from "vitest";
import { computeMedian, roundHalfEven } from "./python-round.js";

describe("roundHalfEven", () => {
  // Expected values were produced by CPython's round().
  it.each([
    [2.25, 1, 2.2],
    [2.35, 1, 2.4],
    [0.0078125, 6, 0.007812],
    [1.005, 2, 1.0],
    [2.675, 2, 2.67],
    [0.125, 2, 0.12],
    [0.375, 2, 0.38],
    [-2.25, 1, -2.2],
    [11.111111, 1, 11.1],
    [-100.05, 1, -100.0],
    [123456.789, 1, 123456.8],
  ])("round(%s, %s) = %s", (value, digits, expected) => {
    expect(roundHalfEven(value, digits)).toBe(expected);
  });

  it("keeps the sign of a negative value rounding to zero, as Python does", () => {
    expect(Object.is(roundHalfEven(-0.04, 1), -0)).toBe(true);
  });

  it("passes integers and non-finite values through", () => {
    expect(roundHalfEven(400, 1)).toBe(400);
    expect(roundHalfEven(Number.POSITIVE_INFINITY, 1)).toBe(Number.POSITIVE_INFINITY);
  });

  it("matches 400 → 391 output tokens improving by exactly 2.25 → 2.2", () => {
    expect(roundHalfEven((100 * (400 - 391)) / 400, 1)).toBe(2.2);
  });
});

describe("computeMedian", () => {
  it("takes the middle of an odd list and the mean of the middle pair of an even one", () => {
    expect(computeMedian([3, 1, 2])).toBe(2);
    expect(computeMedian([4, 1, 3, 2])).toBe(2.5);
  });

  it("refuses an empty list", () => {
    expect(() => computeMedian([])).toThrow(RangeError);
  });
});
