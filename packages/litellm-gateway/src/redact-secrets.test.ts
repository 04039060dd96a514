import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact-secrets.js";

describe("redactSecrets", () => {
  it("replaces every occurrence of each secret and ignores blank or too-short ones", () => {
    expect(redactSecrets("a sk-1234 b sk-1234 c key9", ["sk-1234", "key9", "", undefined, "ab"])).toBe(
      "a [REDACTED] b [REDACTED] c [REDACTED]",
    );
  });
});
