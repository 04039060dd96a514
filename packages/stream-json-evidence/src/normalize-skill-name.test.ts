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
  ])("normalises %j to %j", (input, expected) => {
    expect(normalizeSkillName(input)).toBe(expected);
  });
});
