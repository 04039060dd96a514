import { describe, expect, it } from "vitest";
import { normalizeSkillName } from "./normalize-skill-name.js";

describe("normalizeSkillName", () => {
  it.each([
    ["gitnexus-review", "gitnexus-review"],
    ["  gitnexus-review  ", "gitnexus-review"],
    ["/gitnexus-review args here", "gitnexus-review"],
    ["compound-engineering:ce-code-review", "ce-code-review"],
    ["/plugin:ns:deep-skill --flag", "deep-skill"],
    ["//double", "/double"],
    ["", ""],
    ["   ", ""],
    ["plugin:", ""],
    // Python's str.strip()/split() whitespace, not JavaScript's: U+FEFF is not whitespace, U+001F and U+0085 are.
    ["\ufeffreview", "\ufeffreview"],
    ["review\u001fjunk", "review"],
    ["\u0085/review\u0085x", "review"],
    ["\u001c\u001dreview", "review"],
  ])("normalises %j to %j", (input, expected) => {
    expect(normalizeSkillName(input)).toBe(expected);
  });
});
