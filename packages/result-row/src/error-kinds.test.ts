import { describe, expect, it } from "vitest";
import { ERROR_KINDS, EVIDENCE_FAILURE_KINDS, EXCLUDED_ERROR_KINDS, EXECUTION_FAILURE_KINDS, isErrorKind, isExcludedErrorKind } from "./error-kinds.js";

describe("the error-kind table (reference §4.3)", () => {
  it("excludes exactly the execution failures plus unverifiable and invalid review evidence", () => {
    expect([...EXCLUDED_ERROR_KINDS].sort()).toEqual([...EXECUTION_FAILURE_KINDS, "evidence-unverified", "review-evidence-invalid"].sort());
  });

  it("counts skill-not-invoked as an evidence failure that still enters medians", () => {
    expect(EVIDENCE_FAILURE_KINDS.has("skill-not-invoked")).toBe(true);
    expect(isExcludedErrorKind("skill-not-invoked")).toBe(false);
  });

  it("keeps every set inside ERROR_KINDS", () => {
    for (const kind of [...EXCLUDED_ERROR_KINDS, ...EXECUTION_FAILURE_KINDS, ...EVIDENCE_FAILURE_KINDS]) expect(ERROR_KINDS).toContain(kind);
  });

  it.each<[unknown, boolean]>([
    ["verify-failed", true],
    ["timeout", false],
    [null, false],
    [3, false],
  ])("isErrorKind(%j) is %s", (value, expected) => {
    expect(isErrorKind(value)).toBe(expected);
  });

  it("never excludes a row without an error", () => {
    expect(isExcludedErrorKind(null)).toBe(false);
    expect(isExcludedErrorKind(undefined)).toBe(false);
    expect(isExcludedErrorKind("cancelled")).toBe(true);
  });
});
