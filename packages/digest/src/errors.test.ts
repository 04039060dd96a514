import { describe, expect, it } from "vitest";
import { DigestError, isDigestError } from "./errors.js";

describe("DigestError", () => {
  it("carries its stable code, name and path", () => {
    const error = new DigestError("DIGEST_TOO_DEEP", "what happened", ["a", 0]);
    expect(error).toMatchObject({ code: "DIGEST_TOO_DEEP", name: "DigestError", path: ["a", 0] });
    expect(isDigestError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isDigestError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(false);
    expect(isDigestError("DIGEST_TOO_DEEP")).toBe(false);
  });
});
