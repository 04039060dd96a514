import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { casefoldPython, hasLoneSurrogate, isBlankPython, isSpacePython, splitPython, stripPython, utf8ByteLength } from "./python-text.js";

// Every code point Python 3.11's str.isspace() accepts (python3 -c "print([hex(c) for c in range(0x110000) if chr(c).isspace()])").
const PYTHON_SPACES = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

describe("isSpacePython", () => {
  it("accepts exactly Python's whitespace set over the whole BMP", () => {
    const accepted: number[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) if (isSpacePython(String.fromCharCode(cp))) accepted.push(cp);
    expect(accepted).toEqual(PYTHON_SPACES);
  });

  it("is false for the empty string and U+FEFF, as in Python", () => {
    expect(isSpacePython("")).toBe(false);
    expect(isSpacePython("\ufeff")).toBe(false);
    expect(/^\s+$/u.test("\ufeff")).toBe(true);
  });
});

describe("stripPython", () => {
  it("strips Python's whitespace set, which differs from String#trim", () => {
    expect(stripPython("\u001c\u0085 x \u3000\t")).toBe("x");
    expect(stripPython("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
    expect(stripPython(" \n ")).toBe("");
  });
});

describe("isBlankPython", () => {
  it("calls a string blank when strip() empties it; U+FEFF alone is content", () => {
    expect(isBlankPython("")).toBe(true);
    expect(isBlankPython("\u0085\u001c \t")).toBe(true);
    expect(isBlankPython("\ufeff")).toBe(false);
    expect(isBlankPython(" a ")).toBe(false);
  });
});

describe("splitPython", () => {
  it("splits on runs of Python whitespace and drops empty pieces, like str.split()", () => {
    expect(splitPython("  /plan:x \u0085 rest\u3000more ")).toEqual(["/plan:x", "rest", "more"]);
    expect(splitPython("\ufeff a")).toEqual(["\ufeff", "a"]);
    expect(splitPython(" \t ")).toEqual([]);
    expect(splitPython("")).toEqual([]);
  });

  it("rejoins to the stripped text with single spaces when the text had only single spaces", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,5}$/u)), (words) => {
        expect(splitPython(` ${words.join(" ")} `)).toEqual(words);
      }),
    );
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
    ["PAẞWORD", "password"],
    ["\u13a0", "\u13a0"],
    ["\uab70", "\u13a0"],
    ["İ", "i\u0307"],
    ["\u0131", "\u0131"],
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

describe("utf8ByteLength and hasLoneSurrogate", () => {
  it("counts UTF-8 bytes and finds unpaired surrogates only", () => {
    expect(utf8ByteLength("é😀")).toBe(6);
    expect(hasLoneSurrogate("😀")).toBe(false);
    expect(hasLoneSurrogate("a\ud800")).toBe(true);
    expect(hasLoneSurrogate("\udc00b")).toBe(true);
  });
});
