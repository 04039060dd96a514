import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { casefoldPython, compareCodePoints, stripPython } from "./python-text.js";

describe("stripPython", () => {
  it("strips Python's whitespace set, which differs from String#trim", () => {
    expect(stripPython("\u001c\u0085 x \u3000\t")).toBe("x");
    expect(stripPython("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
    expect(stripPython(" \n ")).toBe("");
  });
});

describe("casefoldPython", () => {
  it.each([
    ["Correctness", "correctness"],
    ["STRASSE", "strasse"],
    ["Straße", "strasse"],
    ["ſecurity", "security"],
    ["ΟΔΟΣ", "οδοσ"],
    ["ﬁx", "fix"],
    ["\u13a0", "\u13a0"],
    ["\uab70", "\u13a0"],
    ["İ", "i\u0307"],
  ])("folds %j to %j like str.casefold()", (input, folded) => {
    expect(casefoldPython(input)).toBe(folded);
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        expect(casefoldPython(casefoldPython(s))).toBe(casefoldPython(s));
      }),
    );
  });
});

describe("compareCodePoints", () => {
  it("orders by code point, not UTF-16 unit", () => {
    expect("\uff21" < "\u{1f600}").toBe(false);
    expect(compareCodePoints("\uff21", "\u{1f600}")).toBeLessThan(0);
    expect(compareCodePoints("a", "ab")).toBeLessThan(0);
    expect(compareCodePoints("b", "ab")).toBeGreaterThan(0);
    expect(compareCodePoints("x", "x")).toBe(0);
  });

  it("agrees with comparing code point arrays", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        const x = Array.from(a, (c) => c.codePointAt(0) as number);
        const y = Array.from(b, (c) => c.codePointAt(0) as number);
        let expected = x.length - y.length;
        for (let i = 0; i < Math.min(x.length, y.length); i++) {
          if (x[i] !== y[i]) {
            expected = (x[i] as number) - (y[i] as number);
            break;
          }
        }
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(expected));
      }),
      { numRuns: 500 },
    );
  });
});
