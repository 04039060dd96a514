import { describe, expect, it } from "vitest";
import { EvidenceError, isEvidenceError } from "./errors.js";

describe("EvidenceError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new EvidenceError("EVIDENCE_TEST", "what happened", { cause });
    expect(error.code).toBe("EVIDENCE_TEST");
    expect(error.name).toBe("EvidenceError");
    expect(error.cause).toBe(cause);
    expect(isEvidenceError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isEvidenceError(foreign)).toBe(false);
    expect(isEvidenceError("EVIDENCE_TEST")).toBe(false);
  });
});
