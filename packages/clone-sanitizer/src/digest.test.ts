import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, digestJson } from "./digest.js";

describe("digestJson", () => {
  it("hashes compact key-sorted JSON, so key order never changes a digest", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(digestJson({ b: 1, a: 2 })).toBe(digestJson({ a: 2, b: 1 }));
    expect(digestJson({ a: 1 })).toBe(createHash("sha256").update('{"a":1}').digest("hex"));
  });
});
