import { describe, expect, it } from "vitest";
import { EvidenceArtifactError, EvidenceError, EvidenceOptionsError, EvidenceSourceError, isEvidenceError, truncateForMessage } from "./errors.js";

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

describe("EvidenceError subclasses", () => {
  it.each([
    [new EvidenceOptionsError("bad"), "EVIDENCE_INVALID_OPTIONS", "EvidenceOptionsError"],
    [new EvidenceSourceError("pipe"), "EVIDENCE_SOURCE_FAILED", "EvidenceSourceError"],
    [new EvidenceArtifactError("EVIDENCE_ARTIFACT_EXISTS", "exists"), "EVIDENCE_ARTIFACT_EXISTS", "EvidenceArtifactError"],
  ])("%s carries a stable code and name", (error, code, name) => {
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(EvidenceError);
    expect(isEvidenceError(error)).toBe(true);
  });
});

describe("truncateForMessage", () => {
  it("bounds echoed text without splitting a surrogate pair", () => {
    expect(truncateForMessage("abc", 5)).toBe("abc");
    const cut = truncateForMessage("😀".repeat(10), 6);
    expect(cut.length).toBeLessThanOrEqual(6);
    expect(cut).toBe("😀😀…");
  });
});
