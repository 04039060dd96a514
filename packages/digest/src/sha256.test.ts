import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { canonicalJson, digestJson, hashFrames, sha256Hex, sha256Stream } from "./sha256.js";

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
