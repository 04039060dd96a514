import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "./compare-code-points.js";

describe("compareCodePoints", () => {
  it("orders by code point, not UTF-16 unit", () => {
    expect("\uff21" < "\u{1f600}").toBe(false);
    expect(compareCodePoints("\uff21", "\u{1f600}")).toBeLessThan(0);
    expect(["\u{1F600}", "\uFF5E", "b", "B"].sort(compareCodePoints)).toEqual(["B", "b", "\uFF5E", "\u{1F600}"]);
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

  it("is UTF-8 byte order for well-formed strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 500 },
    );
  });
});
