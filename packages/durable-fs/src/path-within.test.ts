import { describe, expect, it } from "vitest";
import { isPathWithin } from "./path-within.js";

describe("isPathWithin", () => {
  it("counts the root itself and anything under it as within", () => {
    expect(isPathWithin("/repo", "/repo")).toBe(true);
    expect(isPathWithin("/repo", "/repo/oracles/o.json")).toBe(true);
    expect(isPathWithin("/repo/", "/repo/a")).toBe(true);
  });

  it("counts a child whose name starts with two dots as within, and the parent or a sibling tree as outside", () => {
    expect(isPathWithin("/repo", "/repo/..oracles")).toBe(true);
    expect(isPathWithin("/repo", "/repo/...")).toBe(true);
    expect(isPathWithin("/repo", "/")).toBe(false);
    expect(isPathWithin("/repo", "/repo-other/a")).toBe(false);
    expect(isPathWithin("/repo", "/repo/../etc")).toBe(false);
  });
});
