import { describe, expect, it } from "vitest";
import { inspectJsonGraph, listJsonGraphDefects } from "./inspect-json-graph.js";

const limits = { maxDepth: 50, maxBytes: 1_000_000, pathKeys: 3 };

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

describe("inspectJsonGraph", () => {
  it.each([
    { name: "a scalar", value: "text" },
    { name: "nested maps and lists", value: { a: [1, "two", null, true, { b: [] }], c: {} } },
    { name: "a value shared twice", value: ((shared) => ({ x: shared, y: [shared] }))({ k: [1, 2] }) },
  ])("measures $name as exactly the JSON text it expands to", ({ value }) => {
    const bytes = JSON.stringify(value).length;
    expect(inspectJsonGraph(value, { ...limits, maxBytes: bytes })).toBeNull();
    expect(inspectJsonGraph(value, { ...limits, maxBytes: bytes - 1 })).toEqual({ kind: "too-large", path: [], maxBytes: bytes - 1 });
  });

  it("refuses a graph standing for 10^30 lists after visiting its 30 arrays", () => {
    expect(inspectJsonGraph(sharedBomb(30), limits)).toEqual({ kind: "too-large", path: [], maxBytes: limits.maxBytes });
  });

  it("accepts nesting at the bound and refuses one level more, reporting the chain's first keys", () => {
    expect(inspectJsonGraph(chain(limits.maxDepth), limits)).toBeNull();
    expect(inspectJsonGraph(chain(limits.maxDepth + 1), limits)).toEqual({ kind: "too-deep", path: ["a", "a", "a"], maxDepth: limits.maxDepth });
    expect(inspectJsonGraph({ a: [1, { b: "x" }] }, { maxDepth: 3 })).toBeNull();
    expect(inspectJsonGraph({ a: [1, { b: "x" }] }, { maxDepth: 2 })).toEqual({ kind: "too-deep", path: ["a", 1], maxDepth: 2 });
    expect(inspectJsonGraph([], { maxDepth: 0 })).toEqual({ kind: "too-deep", path: [], maxDepth: 0 });
  });

  it("refuses a chain 1,000,000 levels deep without recursing", () => {
    expect(inspectJsonGraph({ top: chain(1_000_000) }, { ...limits, maxBytes: 2 ** 30 })).toMatchObject({ kind: "too-deep", path: ["top", "a", "a"] });
    let list: unknown = [];
    for (let level = 0; level < 200_000; level += 1) list = [list];
    expect(inspectJsonGraph({ x: list }, { maxDepth: 256 })?.kind).toBe("too-deep");
  });

  it("finds a too-deep chain through a value measured earlier, and names the path down into it", () => {
    const deep = chain(limits.maxDepth - 1);
    // `first` is measured at a depth where it fits; its second appearance, one level lower, does not.
    expect(inspectJsonGraph({ first: deep, later: { deeper: deep } }, limits)).toEqual({ kind: "too-deep", path: ["later", "deeper", "a"], maxDepth: limits.maxDepth });
    // The same when the chain ends in an empty list, which the walk measures without an entry of its own.
    const deepEmpty = chain(limits.maxDepth - 2, []);
    expect(inspectJsonGraph({ first: deepEmpty, later: { deeper: deepEmpty } }, { ...limits, pathKeys: 100 })?.path).toHaveLength(2 + limits.maxDepth - 2);
  });

  it.each([
    { name: "a map", build: () => ((map: Record<string, unknown>) => ((map["self"] = map), { top: map }))({}) },
    { name: "a list", build: () => ((list: unknown[]) => (list.push([2, list]), { top: list }))([1]) },
  ])("refuses a cycle through $name and names where it closes", ({ build }) => {
    const defect = inspectJsonGraph(build(), { maxDepth: 50 });
    expect(defect?.kind).toBe("cycle");
    expect(defect?.path[0]).toBe("top");
  });

  it("refuses a non-finite number with its path, whatever the mode", () => {
    expect(inspectJsonGraph({ a: [1, { b: Number.POSITIVE_INFINITY }] }, { maxDepth: 10 })).toEqual({ kind: "non-finite-number", path: ["a", 1, "b"], value: Number.POSITIVE_INFINITY });
    expect(inspectJsonGraph(JSON.parse("[1e400]"), { maxDepth: 10 })).toMatchObject({ kind: "non-finite-number", path: [0] });
    expect(inspectJsonGraph(Number.NaN, { maxDepth: 10 })).toMatchObject({ kind: "non-finite-number", path: [] });
  });

  it("takes only JSON data in strict mode, and steps over what JSON.stringify drops or leaves alone otherwise", () => {
    const odd = { date: new Date(0), gone: undefined, map: new Map([[1, Number.NaN]]) };
    expect(inspectJsonGraph(odd, { maxDepth: 10 })).toBeNull();
    expect(listJsonGraphDefects(odd, { maxDepth: 10, strict: true }).map((d) => [d.kind, d.path])).toEqual([
      ["not-json-value", ["date"]],
      ["not-json-value", ["gone"]],
      ["not-json-value", ["map"]],
    ]);
    // JSON.stringify throws on a bigint, so no mode lets one through.
    expect(inspectJsonGraph({ big: [1n] }, { maxDepth: 10 })).toEqual({ kind: "not-json-value", path: ["big", 0] });
    const proto = JSON.parse('{"a":{"__proto__":{"x":1e999}}}') as unknown;
    expect(inspectJsonGraph(proto, { maxDepth: 10, strict: true })).toEqual({ kind: "proto-key", path: ["a", "__proto__"] });
    // Outside strict mode an own "__proto__" key is data like any other key.
    expect(inspectJsonGraph(proto, { maxDepth: 10 })).toMatchObject({ kind: "non-finite-number", path: ["a", "__proto__", "x"] });
  });

  it("lists every value defect in document order, each shared value once, and stops at a structural one", () => {
    const shared = { n: Number.NaN };
    const value = { a: { deep: [Number.POSITIVE_INFINITY] }, s: shared, t: shared, z: Number.NEGATIVE_INFINITY };
    expect(listJsonGraphDefects(value, { maxDepth: 10 }).map((d) => d.path.join("."))).toEqual(["a.deep.0", "s.n", "z"]);
    expect(listJsonGraphDefects({ x: Number.NaN, y: chain(20), z: Number.NaN }, { maxDepth: 5 }).map((d) => d.kind)).toEqual(["non-finite-number", "too-deep"]);
  });

  it("keeps the whole path, but only the first pathKeys keys of a too-deep chain", () => {
    expect(inspectJsonGraph(chain(30, Number.NaN), { maxDepth: 100, pathKeys: 2 })?.path).toHaveLength(30);
    expect(inspectJsonGraph(chain(30), { maxDepth: 10 })?.path).toHaveLength(10);
    expect(inspectJsonGraph(chain(30), { maxDepth: 10, pathKeys: 2 })?.path).toEqual(["a", "a"]);
  });

  it("finds the same defects in tree mode, measures a shared value at each place, and still ends at a cycle", () => {
    const value = JSON.parse('{"a":[1,{"b":[1e999]}],"c":"x"}') as unknown;
    expect(inspectJsonGraph(value, { maxDepth: 10, tree: true })).toEqual(inspectJsonGraph(value, { maxDepth: 10 }));
    expect(inspectJsonGraph(chain(51), { ...limits, tree: true })).toEqual(inspectJsonGraph(chain(51), limits));
    const shared = ((inner) => ({ x: inner, y: [inner] }))({ k: [1, 2] });
    expect(inspectJsonGraph(shared, { maxDepth: 10, maxBytes: JSON.stringify(shared).length, tree: true })).toBeNull();
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(inspectJsonGraph(cyclic, { maxDepth: 10, tree: true })?.kind).toBe("too-deep");
    // Without a finite depth a tree walk could not end at a cycle, so the bookkeeping stays on.
    expect(inspectJsonGraph(cyclic, { maxDepth: Number.POSITIVE_INFINITY, tree: true })?.kind).toBe("cycle");
  });
});
