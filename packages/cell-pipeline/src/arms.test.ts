import { describe, expect, it } from "vitest";
import { SANDBOX_REVIEW_OUTPUT_PATH, buildReviewPromptContract } from "@wfbench/review-scoring";
import { HEADLESS_VERIFY, MCP_UNAVAILABLE_NOTE, buildArmSessions, isArmForTask, isCandidateArm, isSupportedArm, listArmSkills, resolveIncumbentArm } from "./arms.js";

const SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };

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

describe("review arm", () => {
  it("gives one review-skill session without Edit, ending with the prompt contract that names the output path once", () => {
    const [session, ...rest] = buildArmSessions("review", "Review the median change.", SKILLS);
    expect(rest).toEqual([]);
    expect(session).toMatchObject({ phase: "review", expectedSkill: "demo-review", disallowSkill: false, allowEdit: false });
    expect(session?.prompt.startsWith("Use the demo-review skill to review the local uncommitted changes in this repository. Review the median change.")).toBe(true);
    expect(session?.prompt).toContain("do not post to GitHub or anywhere external");
    expect(session?.prompt.endsWith(buildReviewPromptContract())).toBe(true);
    expect(session?.prompt.split(SANDBOX_REVIEW_OUTPUT_PATH).length).toBe(2);
    expect(session?.prompt).not.toContain("/workspace/review-output.json");
  });

  it("runs review arms only on review tasks and implementation arms only on the others", () => {
    expect(isArmForTask("review", true)).toBe(true);
    expect(isArmForTask("review", false)).toBe(false);
    for (const arm of ["workflow", "workflow_direct", "baseline"] as const) {
      expect(isArmForTask(arm, false)).toBe(true);
      expect(isArmForTask(arm, true)).toBe(false);
    }
  });
});

describe("listArmSkills / isSupportedArm", () => {
  it("maps arms to their evaluated skills (Appendix B)", () => {
    expect(listArmSkills("workflow", SKILLS)).toEqual(["demo-plan", "demo-work"]);
    expect(listArmSkills("workflow_direct", SKILLS)).toEqual(["demo-work"]);
    expect(listArmSkills("baseline", SKILLS)).toEqual([]);
    expect(listArmSkills("review", SKILLS)).toEqual(["demo-review"]);
  });

  it("accepts only the arms this pipeline runs", () => {
    expect(isSupportedArm("workflow_direct")).toBe(true);
    expect(isSupportedArm("review")).toBe(true);
    expect(isSupportedArm("ce_review")).toBe(true);
    expect(isSupportedArm("Baseline")).toBe(false);
  });
});

describe("CE comparator arms (reference §3.6)", () => {
  it.each([
    ["ce_workflow", "workflow", ["ce-plan", "ce-work"]],
    ["ce_workflow_direct", "workflow_direct", ["ce-work"]],
    ["ce_review", "review", ["ce-code-review"]],
  ] as const)("%s plays %s's session shapes naming the plugin's skills", (arm, shape, skills) => {
    const ce = buildArmSessions(arm, "Fix it.", SKILLS, "docs/plans/p.md");
    const gitnexus = buildArmSessions(shape, "Fix it.", SKILLS, "docs/plans/p.md");
    expect(ce.map((session) => session.phase)).toEqual(gitnexus.map((session) => session.phase));
    expect(ce.map((session) => session.expectedSkill)).toEqual(skills);
    for (const [index, session] of ce.entries()) {
      const skill = skills[index] ?? "";
      expect(session.prompt).toMatch(new RegExp(`^Use the compound-engineering:${skill} skill \\(compound-engineering plugin\\) `, "u"));
      // Everything after the skill's name is the GitNexus arm's prompt word for word.
      const gitnexusPrompt = gitnexus[index]?.prompt ?? "";
      expect(session.prompt.slice(session.prompt.indexOf(" skill (compound-engineering plugin) ") + " skill (compound-engineering plugin) ".length)).toBe(gitnexusPrompt.slice(gitnexusPrompt.indexOf(" skill ") + " skill ".length));
      expect(session).toMatchObject({ disallowSkill: false, allowEdit: gitnexus[index]?.allowEdit });
    }
    // The plugin's skills are not repository skills: nothing in the workspace is fingerprinted for a CE arm.
    expect(listArmSkills(arm, SKILLS)).toEqual([]);
    expect(isArmForTask(arm, shape === "review")).toBe(true);
    expect(isArmForTask(arm, shape !== "review")).toBe(false);
  });
});

describe("candidate arms (Appendix B CANDIDATE_ARMS)", () => {
  it.each([
    ["candidate_workflow", "workflow", false],
    ["candidate_workflow_direct", "workflow_direct", false],
    ["candidate_review", "review", true],
  ] as const)("%s plays %s's sessions and skills, on the same kind of task", (candidate, incumbent, review) => {
    expect(isCandidateArm(candidate)).toBe(true);
    expect(resolveIncumbentArm(candidate)).toBe(incumbent);
    expect(buildArmSessions(candidate, "Fix it.", SKILLS, "docs/plans/p.md")).toEqual(buildArmSessions(incumbent, "Fix it.", SKILLS, "docs/plans/p.md"));
    expect(listArmSkills(candidate, SKILLS)).toEqual(listArmSkills(incumbent, SKILLS));
    expect(isArmForTask(candidate, review)).toBe(true);
    expect(isArmForTask(candidate, !review)).toBe(false);
  });

  it("knows no other candidate arm", () => {
    expect(isCandidateArm("workflow")).toBe(false);
    expect(isCandidateArm("candidate_baseline")).toBe(false);
    expect(resolveIncumbentArm("baseline")).toBe("baseline");
  });
});

describe("baseline_nomcp", () => {
  it("plays the baseline session with the no-MCP note and without slash commands", () => {
    const skills = { plan: "p", work: "w", review: "r" };
    const [baseline] = buildArmSessions("baseline", "Add clamp.", skills);
    const [nomcp] = buildArmSessions("baseline_nomcp", "Add clamp.", skills);
    expect(nomcp).toEqual({ ...baseline, prompt: `${baseline?.prompt ?? ""}\n\n${MCP_UNAVAILABLE_NOTE}`, disableSlashCommands: true });
    expect(baseline?.disableSlashCommands).toBeUndefined();
    expect(listArmSkills("baseline_nomcp", skills)).toEqual([]);
    expect(isArmForTask("baseline_nomcp", false)).toBe(true);
    expect(isArmForTask("baseline_nomcp", true)).toBe(false);
  });
});
