import { describe, expect, it } from "vitest";
import { findExpansionDefect } from "./check-expansion.js";
import { ToolUseBlockSchema } from "./schema.js";

const limits = { maxBytes: 1_000_000, maxDepth: 50, pathKeys: 3 };

function chain(levels: number, leaf: unknown = "x"): unknown {
  let value = leaf;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value;
}

// Ten references to one list per level: a graph of `levels` arrays standing for 10^levels lists.
function sharedBomb(levels: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 0; level < levels; level += 1) value = Array<unknown>(10).fill(value);
  return value;
}

describe("findExpansionDefect", () => {
  it.each([
    { name: "a scalar", value: "text" },
    { name: "nested maps and lists", value: { a: [1, "two", null, true, { b: [] }], c: {} } },
    { name: "a value shared twice", value: ((shared) => ({ x: shared, y: [shared] }))({ k: [1, 2] }) },
  ])("measures $name as exactly the JSON text it expands to", ({ value }) => {
    expect(findExpansionDefect(value, { ...limits, maxBytes: JSON.stringify(value).length })).toBeNull();
    expect(findExpansionDefect(value, { ...limits, maxBytes: JSON.stringify(value).length - 1 })).toEqual({ kind: "too-large", maxBytes: JSON.stringify(value).length - 1 });
  });

  it("refuses a graph standing for 10^30 lists after visiting its 30 arrays", () => {
    const started = performance.now();
    expect(findExpansionDefect(sharedBomb(30), limits)).toEqual({ kind: "too-large", maxBytes: limits.maxBytes });
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("accepts nesting at the bound and refuses one level more, reporting the chain's first keys", () => {
    expect(findExpansionDefect(chain(limits.maxDepth), limits)).toBeNull();
    expect(findExpansionDefect(chain(limits.maxDepth + 1), limits)).toEqual({ kind: "too-deep", path: ["a", "a", "a"], maxDepth: limits.maxDepth });
  });

  it("refuses a chain 1,000,000 levels deep without recursing", () => {
    expect(findExpansionDefect({ top: chain(1_000_000) }, { ...limits, maxBytes: 2 ** 30 })).toMatchObject({ kind: "too-deep", path: ["top", "a", "a"] });
  });

  it("finds a too-deep chain through a value measured earlier, and names the path down into it", () => {
    const deep = chain(limits.maxDepth - 1);
    // `first` is measured at a depth where it fits; its second appearance, one level lower, does not.
    expect(findExpansionDefect({ first: deep, later: { deeper: deep } }, limits)).toEqual({ kind: "too-deep", path: ["later", "deeper", "a"], maxDepth: limits.maxDepth });
  });

  it.each([
    { name: "a map", build: () => ((map: Record<string, unknown>) => ((map["self"] = map), { top: map }))({}) },
    { name: "a list", build: () => ((list: unknown[]) => (list.push([2, list]), { top: list }))([1]) },
  ])("refuses a cycle through $name and names where it closes", ({ build }) => {
    const defect = findExpansionDefect(build(), limits);
    expect(defect?.kind).toBe("cycle");
    expect(defect && "path" in defect ? defect.path[0] : null).toBe("top");
  });
});

describe("ToolUseBlockSchema's JSON check", () => {
  it("walks a 100,000-level input without overflowing the stack and still finds a bad number at the bottom", () => {
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: chain(100_000, Number.NaN) });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/NaN is not a JSON number/);
    expect(result.error?.issues[0]?.path).toHaveLength(100_001);
  });

  it("checks a shared value once and stops at a cycle instead of looping", () => {
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { ok: sharedBomb(25), shared, again: shared };
    cyclic["self"] = cyclic;
    expect(ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: cyclic }).success).toBe(true);
  });

  it("reports issues in document order, a __proto__ key among them", () => {
    const input = JSON.parse('{"a": {"deep": [1e999]}, "__proto__": {}, "z": null}') as unknown;
    (input as Record<string, unknown>)["z"] = Number.POSITIVE_INFINITY;
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual(["input.a.deep.0", "input.__proto__", "input.z"]);
  });
});
