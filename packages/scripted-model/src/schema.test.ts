import { describe, expect, it } from "vitest";
import { ToolUseBlockSchema } from "./schema.js";

// A chain of `levels` maps, and (10 references to one list per level) a graph standing for 10^levels lists.
const chain = (levels: number, leaf: unknown): unknown => Array.from({ length: levels }).reduce<unknown>((inner) => ({ a: inner }), leaf);
const sharedBomb = (levels: number): unknown[] => Array.from({ length: levels }).reduce<unknown[]>((inner) => Array<unknown>(10).fill(inner), []);

describe("ToolUseBlockSchema's JSON check", () => {
  it("walks a 100,000-level input without overflowing the stack and still finds a bad number at the bottom", () => {
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: chain(100_000, Number.NaN) });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/NaN is not a JSON number/);
    expect(result.error?.issues[0]?.path).toHaveLength(100_001);
  });

  it("checks a shared value once, and refuses a cycle instead of looping (JSON has no form for it)", () => {
    const shared = { n: 1 };
    expect(ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: { ok: sharedBomb(25), shared, again: shared } }).success).toBe(true);
    const cyclic: Record<string, unknown> = { ok: sharedBomb(25), shared, again: shared };
    cyclic["self"] = cyclic;
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: cyclic });
    expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([["input.self", expect.stringMatching(/contains itself/u)]]);
  });

  it("reports issues in document order, a __proto__ key among them", () => {
    const input = JSON.parse('{"a": {"deep": [1e999]}, "__proto__": {}, "z": null}') as unknown;
    (input as Record<string, unknown>)["z"] = Number.POSITIVE_INFINITY;
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual(["input.a.deep.0", "input.__proto__", "input.z"]);
  });

  it("names values JSON cannot carry", () => {
    const result = ToolUseBlockSchema.safeParse({ type: "tool_use", name: "Bash", input: { when: new Date(0), bytes: new Uint8Array(2) } });
    expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["input.when", "not a JSON value (use strings, finite numbers, booleans, null, lists, maps)"],
      ["input.bytes", "not a JSON value (use strings, finite numbers, booleans, null, lists, maps)"],
    ]);
  });
});
