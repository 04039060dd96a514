import { describe, expect, it } from "vitest";
import { flattenLines, formatFixed, markdownCode, markdownText } from "./format-text.js";

describe("formatFixed", () => {
  // Python's %.Nf is @wfbench/pycompat's formatFixed (its tests hold the CPython vectors); this adds only the sign rule.
  it("prints as Python's %-format does: ties to even, every digit of a huge value", () => {
    expect(formatFixed(0.03125, 4)).toBe("0.0312");
    expect(formatFixed(1e22, 1)).toBe("10000000000000000000000.0");
  });

  it("prints a value that rounds to zero without a sign (the one difference from Python's -0.0)", () => {
    expect(formatFixed(-0.04, 1)).toBe("0.0");
    expect(formatFixed(-0, 2)).toBe("0.00");
    expect(formatFixed(-0.06, 1)).toBe("-0.1");
  });
});

describe("markdownText", () => {
  it.each([
    ["demo-clamp", "demo-clamp"],
    ["a|b", "a\\|b"],
    ["one\ntwo\r\nthree\rfour", "one \u23ce two \u23ce three \u23ce four"],
    ["<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert(1)\\>"],
    ["[click](https://evil.example)", "\\[click\\](https://evil.example)"],
    ["`code` and **bold**", "\\`code\\` and \\*\\*bold\\*\\*"],
    ["back\\slash|", "back\\\\slash\\|"],
  ])("escapes %j as %j", (text, expected) => {
    expect(markdownText(text)).toBe(expected);
  });
});

describe("markdownCode", () => {
  it.each([
    ["claude-sonnet-4-5", "`claude-sonnet-4-5`"],
    ["a`b", "``a`b``"],
    ["``x", "``` ``x ```"],
    ["x`", "`` x` ``"],
    [" padded ", "`  padded  `"], // CommonMark strips one space each side: renders " padded "
    ["line\nbreak", "`line \u23ce break`"],
  ])("fences %j as %j", (text, expected) => {
    expect(markdownCode(text)).toBe(expected);
  });
});

describe("flattenLines", () => {
  it("keeps text without line breaks as it is", () => {
    expect(flattenLines("`ok` (HTTP 200)")).toBe("`ok` (HTTP 200)");
  });
});
