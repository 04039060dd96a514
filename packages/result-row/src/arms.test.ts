import { describe, expect, it } from "vitest";
import { CANDIDATE_ARMS, CANDIDATE_ARM_NAMES, DEFAULT_ARMS, IMPLEMENTATION_ARMS, KNOWN_ARMS, REVIEW_ARMS, SUPPORTED_ARMS, isCandidateArm, isSupportedArm, resolveIncumbentArm } from "./arms.js";

describe("the arm vocabulary (reference Appendix B)", () => {
  it("maps every candidate arm to its incumbent, in canonical order", () => {
    expect(CANDIDATE_ARMS).toEqual({ candidate_workflow: "workflow", candidate_workflow_direct: "workflow_direct", candidate_review: "review" });
    expect(CANDIDATE_ARM_NAMES).toEqual(Object.keys(CANDIDATE_ARMS));
    for (const arm of CANDIDATE_ARM_NAMES) expect(resolveIncumbentArm(arm)).toBe(CANDIDATE_ARMS[arm]);
  });

  it("keeps every list inside the known arms", () => {
    for (const arm of [...SUPPORTED_ARMS, ...DEFAULT_ARMS, ...IMPLEMENTATION_ARMS, ...REVIEW_ARMS, ...CANDIDATE_ARM_NAMES]) expect(KNOWN_ARMS).toContain(arm);
    for (const arm of [...DEFAULT_ARMS, ...IMPLEMENTATION_ARMS, ...REVIEW_ARMS, ...CANDIDATE_ARM_NAMES]) expect(isSupportedArm(arm)).toBe(true);
  });

  it.each(["workflow", "baseline", "ce_review", "toString", "constructor", "candidate_baseline"])("does not take %s for a candidate arm", (arm) => {
    expect(isCandidateArm(arm)).toBe(false);
  });

  it("tells supported arms from known-but-unsupported and unknown ones", () => {
    expect(isSupportedArm("baseline")).toBe(true);
    expect(isSupportedArm("ce_workflow")).toBe(false);
    expect(isSupportedArm("Baseline")).toBe(false);
  });
});
