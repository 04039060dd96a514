import { describe, expect, it } from "vitest";
import { CANDIDATE_ARMS, CANDIDATE_ARM_NAMES, CE_ARMS, DEFAULT_ARMS, HOST_UNSAFE_ARMS, IMPLEMENTATION_ARMS, KNOWN_ARMS, REVIEW_ARMS, SUPPORTED_ARMS, isCandidateArm, isCeArm, isSupportedArm, resolveIncumbentArm } from "./arms.js";

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
    expect(isSupportedArm("Baseline")).toBe(false);
  });

  it("supports the CE comparator arms, each playing its GitNexus counterpart's sessions on the same kind of task", () => {
    expect(CE_ARMS).toEqual({ ce_workflow: "workflow", ce_workflow_direct: "workflow_direct", ce_review: "review" });
    for (const arm of ["ce_workflow", "ce_workflow_direct", "ce_review"] as const) {
      expect(isSupportedArm(arm)).toBe(true);
      expect(isCeArm(arm)).toBe(true);
      expect(isCandidateArm(arm)).toBe(false);
      expect(resolveIncumbentArm(arm)).toBe(CE_ARMS[arm]);
    }
    expect(IMPLEMENTATION_ARMS).toEqual(expect.arrayContaining(["ce_workflow", "ce_workflow_direct"]));
    expect(REVIEW_ARMS).toContain("ce_review");
    for (const arm of ["review", "candidate_review", "toString", "ce_"]) expect(isCeArm(arm)).toBe(false);
  });

  it("lets the host-unsafe backend run review arms only (reference §6.8)", () => {
    expect(HOST_UNSAFE_ARMS).toEqual(["ce_review", "review", "candidate_review"]);
    for (const arm of HOST_UNSAFE_ARMS) expect(IMPLEMENTATION_ARMS).not.toContain(arm);
  });
});
