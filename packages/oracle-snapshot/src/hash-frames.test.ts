import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashFrames, sha256Hex } from "./hash-frames.js";

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
