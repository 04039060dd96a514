import { describe, expect, it } from "vitest";
import { normalizeRepoPath, normpathPosix } from "./normalize-repo-path.js";

describe("normpathPosix", () => {
  // Expected values are what CPython's posixpath.normpath returns.
  it.each([
    ["", "."],
    [".", "."],
    ["a/./b/", "a/b"],
    ["a//b", "a/b"],
    ["a/b/../c", "a/c"],
    ["../a", "../a"],
    ["a/../../b", "../b"],
    ["../../a/..", "../.."],
    ["/..", "/"],
    ["/a/../..", "/"],
    ["//a", "//a"],
    ["///a", "/a"],
    ["..foo/x", "..foo/x"],
  ])("normalises %j to %j", (input, expected) => {
    expect(normpathPosix(input)).toBe(expected);
  });
});

describe("normalizeRepoPath", () => {
  it.each(["src/a.ts", "a\\b.ts", "./src//a.ts", "src/x/../a.ts", "..foo/a", ".github/workflows/ci.yml"])("accepts %j", (input) => {
    expect(normalizeRepoPath(input).ok).toBe(true);
  });

  it("rewrites backslashes before normalising", () => {
    expect(normalizeRepoPath("src\\lib\\..\\a.ts")).toEqual({ ok: true, path: "src/a.ts" });
  });

  it.each(["/etc/passwd", "//server/share", "\\abs", ".", "./", "..", "a/../..", "../x", "a/../../x", "C:\\..\\..\\x"])(
    "refuses %j",
    (input) => {
      expect(normalizeRepoPath(input).ok).toBe(false);
    },
  );
});
