import { describe, expect, it } from "vitest";
import { checkRelativePath } from "./check-relative-path.js";

const rule = (path: string, options = {}) => checkRelativePath(path, options)?.rule ?? null;

describe("checkRelativePath", () => {
  it.each([
    ["src/a.ts", null],
    ["\ufeff", null],
    ["~notes", null],
    ["", "bad-part"],
    [" \u0085 ", "blank"],
    ["a\0b", "nul"],
    ["a\\b", "backslash"],
    ["a/\ud800", "not-unicode"],
    ["/etc/passwd", "absolute"],
    ["a//b", "bad-part"],
    ["a/./b", "bad-part"],
    ["../x", "bad-part"],
    ["a/", "bad-part"],
    [".git/config", "under-git"],
    [".GIT", "under-git"],
    ["vendor/.git/config", null],
    [".github/workflows/ci.yml", null],
  ])("%j → %s with the defaults", (path, expected) => {
    expect(rule(path)).toBe(expected);
  });

  it("applies the reference's oracle rule: no .git prefix and no .git part", () => {
    const oracle = { git: "refuse-prefix-and-any-part" } as const;
    expect(rule(".github/x", oracle)).toBe("under-git");
    expect(rule(".gitignore", oracle)).toBe("under-git");
    expect(rule("a/.Git/b", oracle)).toBe("under-git");
    expect(rule("a/b.git", oracle)).toBeNull();
  });

  it("lets .git through when asked (read-only mounts may cover it)", () => {
    expect(rule(".git", { git: "allow" })).toBeNull();
  });

  it("bounds the UTF-8 length, not the UTF-16 length", () => {
    expect(rule("é".repeat(2048))).toBeNull();
    expect(rule(`${"é".repeat(2048)}x`)).toBe("too-long");
    expect(rule("abcd", { maxBytes: 3 })).toBe("too-long");
    expect(checkRelativePath("abcd", { maxBytes: 3 })?.message).toBe("must be at most 3 bytes");
  });
});
