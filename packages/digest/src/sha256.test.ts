import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "./compare-code-points.js";
import { isDigestError } from "./errors.js";
import { MAX_CANONICAL_JSON_DEPTH, canonicalJson, digestJson, hashFrames, sha256Hex, sha256Stream } from "./sha256.js";

function refusalOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
}

function nest(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

describe("sha256Hex", () => {
  it("hashes text as UTF-8 and bytes as given", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("é")).toBe(sha256Hex(Buffer.from([0xc3, 0xa9])));
  });
});

describe("sha256Stream", () => {
  it("hashes a chunked stream to the same digest as its bytes and counts them", async () => {
    const bytes = Buffer.from("one two three, 😀");
    const result = await sha256Stream(Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]));
    expect(result).toEqual({ sha256: sha256Hex(bytes), size: bytes.length });
  });
});

describe("digestJson", () => {
  it("hashes compact key-sorted JSON, so key order never changes a digest", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(digestJson({ b: 1, a: 2 })).toBe(digestJson({ a: 2, b: 1 }));
    expect(digestJson({ a: 1 })).toBe(createHash("sha256").update('{"a":1}').digest("hex"));
    expect(digestJson([])).toBe(sha256Hex("[]"));
  });
});

describe("canonicalJson", () => {
  it("sorts keys by code point, as Python's json.dumps(sort_keys=True) does, not by UTF-16 unit", () => {
    // U+FF01 sorts before U+1F600 by code point; JavaScript's default sort compares the surrogate 0xD83D first.
    expect(Object.keys({ "\u{1F600}": 1, "\uFF01": 2 }).sort()).toEqual(["\u{1F600}", "\uFF01"]);
    expect(canonicalJson({ "\u{1F600}": 1, "\uFF01": 2 })).toBe('{"\uFF01":2,"\u{1F600}":1}');
    // Python: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    const value = { "\u{1F600}": 1, "\uFF01": { b: [1, { "\u{1F600}": "x", "\uFF5E": "y", z: null }], a: true }, A: "é" };
    const python = '{"A":"é","\uFF01":{"a":true,"b":[1,{"z":null,"\uFF5E":"y","\u{1F600}":"x"}]},"\u{1F600}":1}';
    expect(canonicalJson(value)).toBe(python);
    expect(digestJson(value)).toBe("2d582574dcc435088c96bf695115796b95d1729d4a2a717ed205ab85e388a45a");
  });

  it("orders keys as compareCodePoints does, whatever their insertion order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: "grapheme", maxLength: 4 }), { maxLength: 8 }), (keys) => {
        const forward = Object.fromEntries(keys.map((key, i) => [key, i]));
        const backward = Object.fromEntries([...keys].reverse().map((key) => [key, forward[key]]));
        const text = canonicalJson(forward);
        expect(canonicalJson(backward)).toBe(text);
        expect(Object.keys(JSON.parse(text) as object)).toEqual(
          // Integer-like keys come first in any parsed object, so compare the order of the rest only.
          Object.keys(Object.fromEntries([...keys].sort(compareCodePoints).map((key) => [key, 0]))),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("canonicalJson's refusals", () => {
  it.each([
    { name: "Infinity from JSON.parse of 1e400", value: JSON.parse('{"a":[1e400]}') as unknown, path: '["a",0]' },
    { name: "NaN", value: { b: Number.NaN }, path: '["b"]' },
    { name: "-Infinity at the root", value: Number.NEGATIVE_INFINITY, path: "path [] " },
  ])("refuses $name, as Python's json.dumps(allow_nan=False) does, instead of writing null", ({ value, path }) => {
    const error = refusalOf(() => canonicalJson(value));
    expect(isDigestError(error)).toBe(true);
    expect(error).toMatchObject({ name: "DigestError", code: "DIGEST_NON_FINITE_NUMBER" });
    expect((error as Error).message).toContain(path);
    expect(refusalOf(() => digestJson(value))).toMatchObject({ code: "DIGEST_NON_FINITE_NUMBER" });
  });

  it("no longer lets Infinity and null digest alike", () => {
    expect(digestJson({ a: null })).toBe(sha256Hex('{"a":null}'));
    expect(refusalOf(() => digestJson(JSON.parse('{"a":1e400}')))).toMatchObject({ code: "DIGEST_NON_FINITE_NUMBER" });
  });

  it("takes nesting up to its bound and refuses one level more before stringify could overflow", () => {
    const atBound = nest(MAX_CANONICAL_JSON_DEPTH);
    // JSON.stringify itself overflows near 4,100 levels, so the text is checked by its brackets.
    const text = canonicalJson(atBound);
    expect(text.split("[").length - 1 + text.split("{").length - 1).toBe(MAX_CANONICAL_JSON_DEPTH);
    expect(refusalOf(() => canonicalJson([atBound]))).toMatchObject({ code: "DIGEST_TOO_DEEP", path: expect.any(Array) as unknown });
    expect(refusalOf(() => digestJson(nest(1_000_000)))).toMatchObject({ code: "DIGEST_TOO_DEEP" });
  });

  it("refuses a cycle and a bigint with a DigestError, not a TypeError", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(refusalOf(() => canonicalJson(cyclic))).toMatchObject({ code: "DIGEST_CYCLE" });
    expect(refusalOf(() => canonicalJson({ n: 1n }))).toMatchObject({ code: "DIGEST_NOT_JSON" });
  });

  it("still drops undefined members and writes a shared value out each time", () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: undefined, b: [shared, shared] })).toBe('{"b":[{"k":1},{"k":1}]}');
  });
});

describe("hashFrames", () => {
  it("hashes no frames as the empty sha256", () => {
    expect(hashFrames([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("prefixes each frame with its 8-byte big-endian length (vector computed independently in Python)", () => {
    expect(hashFrames(["abc"])).toBe("c3494ca1a2cf8eeb8a11ded316fb55b83c3bbbedb6313cd50415251e5d09e12f");
    const manual = createHash("sha256")
      .update(Buffer.from([0, 0, 0, 0, 0, 0, 0, 3]))
      .update("abc")
      .digest("hex");
    expect(hashFrames(["abc"])).toBe(manual);
  });

  it("keeps frame boundaries: moving bytes between frames changes the digest", () => {
    expect(hashFrames(["ab", "c"])).not.toBe(hashFrames(["a", "bc"]));
    expect(hashFrames(["abc"])).not.toBe(sha256Hex("abc"));
  });

  it("hashes strings as UTF-8, the same as their bytes", () => {
    expect(hashFrames(["é😀"])).toBe(hashFrames([Buffer.from("é😀", "utf8")]));
  });
});
