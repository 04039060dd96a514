import { describe, expect, it } from "vitest";
import { exceedsNestingDepth, findJsonValueDefect } from "./inspect-json-value.js";
import type { JsonValue } from "./schema.js";

describe("exceedsNestingDepth", () => {
  it("counts only brackets outside string literals, escapes included", () => {
    expect(exceedsNestingDepth(`{"a":"${"[".repeat(1000)}\\"${"{".repeat(1000)}"}`, 2)).toBe(false);
    expect(exceedsNestingDepth('{"a":[[1]]}', 3)).toBe(false);
    expect(exceedsNestingDepth('{"a":[[1]]}', 2)).toBe(true);
    expect(exceedsNestingDepth("[]".repeat(10_000), 1)).toBe(false);
  });
});

describe("findJsonValueDefect", () => {
  it("finds non-finite numbers and over-deep nesting without recursing", () => {
    let deep: JsonValue = [];
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    expect(findJsonValueDefect({ x: deep })).toBe("nesting-too-deep");
    expect(findJsonValueDefect({ a: [1, { b: Number.POSITIVE_INFINITY }] })).toBe("non-finite-number");
    expect(findJsonValueDefect({ a: [1, { b: "x" }] }, 3)).toBeNull();
    expect(findJsonValueDefect({ a: [1, { b: "x" }] }, 2)).toBe("nesting-too-deep");
  });
});
