import { describe, expect, it } from "vitest";
import { formatFixed, median, roundHalfEven } from "./python-number.js";

describe("roundHalfEven", () => {
  // Expected values were produced by CPython's round().
  it.each([
    [2.25, 1, 2.2],
    [2.35, 1, 2.4],
    [0.0078125, 6, 0.007812],
    [3 / 128, 6, 0.023438],
    [0.0000005, 6, 0],
    [0.0000015, 6, 0.000002],
    [0.1234565, 6, 0.123456],
    [1.005, 2, 1.0],
    [2.675, 2, 2.67],
    [0.125, 2, 0.12],
    [0.375, 2, 0.38],
    [-2.25, 1, -2.2],
    [11.111111, 1, 11.1],
    [-100.05, 1, -100.0],
    [123456.789, 1, 123456.8],
    [2.5, 0, 2],
    [3.5, 0, 4],
  ])("round(%s, %s) = %s", (value, digits, expected) => {
    expect(roundHalfEven(value, digits)).toBe(expected);
  });

  it("differs from naive Math.round on exact ties", () => {
    expect(Math.round((1 / 128) * 1e6) / 1e6).toBe(0.007813);
    expect(roundHalfEven(1 / 128, 6)).toBe(0.007812);
  });

  it("keeps the sign of a negative value rounding to zero, as Python does", () => {
    expect(Object.is(roundHalfEven(-0.04, 1), -0)).toBe(true);
  });

  it("passes integers and non-finite values through and refuses a bad digit count", () => {
    expect(roundHalfEven(400, 1)).toBe(400);
    expect(roundHalfEven(Number.POSITIVE_INFINITY, 1)).toBe(Number.POSITIVE_INFINITY);
    expect(roundHalfEven(Number.NaN, 1)).toBeNaN();
    expect(() => roundHalfEven(1, 21)).toThrow(RangeError);
    expect(() => roundHalfEven(1, 1.5)).toThrow(RangeError);
  });

  it("matches 400 → 391 output tokens improving by exactly 2.25 → 2.2", () => {
    expect(roundHalfEven((100 * (400 - 391)) / 400, 1)).toBe(2.2);
  });
});

describe("median", () => {
  it("takes the middle of an odd list and the mean of the middle pair of an even one", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 2])).toBe(6);
  });

  it("refuses an empty list", () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe("formatFixed", () => {
  // Expected values: python3 -c "print(repr('%.*f' % (digits, x)))".
  it.each([
    [0.03125, 4, "0.0312"],
    [0.25, 1, "0.2"],
    [2.5, 0, "2"],
    // ulp 0.0625 here: the value is the tie .3125 exactly, which toFixed(3) sends up to .313 even after rounding.
    [301621785391628.3, 3, "301621785391628.312"],
    [1e21, 0, "1000000000000000000000"],
    [1e300, 2, "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.00"],
    [-0.04, 1, "-0.0"],
    [-0, 2, "-0.00"],
    [0, 3, "0.000"],
    [-2.675, 2, "-2.67"],
    [5e-324, 3, "0.000"],
    [1.5e-7, 6, "0.000000"],
    [123.456, 0, "123"],
    [Infinity, 2, "inf"],
    [-Infinity, 2, "-inf"],
    [Number.NaN, 2, "nan"],
  ])("formats %s with %i digits as %s", (x, digits, expected) => {
    expect(formatFixed(x, digits)).toBe(expected);
  });

  it("refuses a digit count outside 0..20", () => {
    expect(() => formatFixed(1, 21)).toThrow(RangeError);
    expect(() => formatFixed(1, 1.5)).toThrow(RangeError);
  });
});
