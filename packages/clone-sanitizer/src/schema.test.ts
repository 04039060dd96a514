import { describe, expect, it } from "vitest";
import { parseDeclaration } from "./parse-declaration.js";
import { pathsOverlap, PrepareTemplateInputSchema, RelativePathSchema } from "./schema.js";

describe("RelativePathSchema", () => {
  it.each(["a", "a/b.txt", ".github/workflows/x.yml", "eval/workflow_bench"])("accepts %s", (path) => {
    expect(RelativePathSchema.safeParse(path).success).toBe(true);
  });
  it.each(["", " ", "/abs", "a/../b", "..", "./a", "a//b", "a/", ".git", ".GIT/config", "a\\b", "a\0b", "x".repeat(4097)])(
    "refuses %j",
    (path) => {
      expect(RelativePathSchema.safeParse(path).success).toBe(false);
    },
  );
});

describe("pathsOverlap", () => {
  it("treats equal and nested paths as overlapping, siblings with a common prefix as not", () => {
    expect(pathsOverlap("a/b", "a/b")).toBe(true);
    expect(pathsOverlap("a", "a/b")).toBe(true);
    expect(pathsOverlap("a/b", "a")).toBe(true);
    expect(pathsOverlap("a/b", "a/bc")).toBe(false);
  });
});

describe("parseDeclaration", () => {
  it("names the first offending field", () => {
    const result = parseDeclaration(PrepareTemplateInputSchema, {
      repo: "/r",
      sha: "a".repeat(40),
      hiddenPaths: ["ok", "bad/../x"],
    });
    expect(result).toMatchObject({ ok: false, error: { kind: "invalid-declaration", field: "hiddenPaths[1]" } });
  });
  it("refuses a short sha and a relative repo", () => {
    expect(parseDeclaration(PrepareTemplateInputSchema, { repo: "/r", sha: "abc", hiddenPaths: [] })).toMatchObject({
      error: { field: "sha" },
    });
    expect(parseDeclaration(PrepareTemplateInputSchema, { repo: "r", sha: "a".repeat(64), hiddenPaths: [] })).toMatchObject({
      error: { field: "repo" },
    });
  });
  it("defaults neutralize to an empty list", () => {
    const result = parseDeclaration(PrepareTemplateInputSchema, { repo: "/r", sha: "b".repeat(40), hiddenPaths: [] });
    expect(result.ok && result.value.neutralize).toEqual([]);
  });
});

