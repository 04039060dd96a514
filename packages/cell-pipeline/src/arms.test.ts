import { describe, expect, it } from "vitest";
import { HEADLESS_VERIFY, buildArmSessions, isSupportedArm, listArmSkills } from "./arms.js";

const SKILLS = { plan: "demo-plan", work: "demo-work" };

describe("buildArmSessions", () => {
  it("gives the baseline one session without the Skill tool and no expected skill", () => {
    const [session, ...rest] = buildArmSessions("baseline", "Fix the bug.", SKILLS);
    expect(rest).toEqual([]);
    expect(session).toMatchObject({ phase: "work", expectedSkill: null, disallowSkill: true });
    expect(session?.prompt.startsWith("Fix the bug.\n\nImplement the change")).toBe(true);
  });

  it("gives workflow_direct one work-skill session in direct mode with the headless verify note", () => {
    const [session] = buildArmSessions("workflow_direct", "Fix the bug.", SKILLS);
    expect(session).toMatchObject({ phase: "work", expectedSkill: "demo-work", disallowSkill: false });
    expect(session?.prompt.startsWith("Use the demo-work skill for: Fix the bug.")).toBe(true);
    expect(session?.prompt).toContain("direct mode");
    expect(session?.prompt.endsWith(HEADLESS_VERIFY)).toBe(true);
  });

  it("gives workflow a plan session then a work session naming the plan", () => {
    const [plan, work] = buildArmSessions("workflow", "Fix the bug.", SKILLS, "docs/plans/fix.md");
    expect(plan).toMatchObject({ phase: "plan", expectedSkill: "demo-plan" });
    expect(plan?.prompt).toContain("Use the demo-plan skill for: Fix the bug.");
    expect(work).toMatchObject({ phase: "work", expectedSkill: "demo-work" });
    expect(work?.prompt).toContain("Use the demo-work skill to execute the plan at docs/plans/fix.md");
  });
});

describe("listArmSkills / isSupportedArm", () => {
  it("maps arms to their evaluated skills (Appendix B)", () => {
    expect(listArmSkills("workflow", SKILLS)).toEqual(["demo-plan", "demo-work"]);
    expect(listArmSkills("workflow_direct", SKILLS)).toEqual(["demo-work"]);
    expect(listArmSkills("baseline", SKILLS)).toEqual([]);
  });

  it("accepts only the arms this pipeline runs", () => {
    expect(isSupportedArm("workflow_direct")).toBe(true);
    expect(isSupportedArm("review")).toBe(false);
    expect(isSupportedArm("Baseline")).toBe(false);
  });
});
