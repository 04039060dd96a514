import { describe, expect, it } from "vitest";
import { buildProposerPrompt } from "./build-proposer-prompt.js";
import { listProfileSkills } from "./run-proposer-session.js";

const SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };

describe("buildProposerPrompt", () => {
  it("names the evidence mount, the output paths, the Bash-only rule and the profile's skills", () => {
    const prompt = buildProposerPrompt({ profile: "implementation", skills: listProfileSkills("implementation", SKILLS) });
    expect(prompt.split("\n")[0]).toBe("WFBENCH-PROPOSER-SESSION");
    expect(prompt).toContain("/evidence");
    expect(prompt).toContain("/workspace/.wfbench-output/overlay/.claude/skills/<skill>/");
    expect(prompt).toContain("/workspace/.wfbench-output/proposal.md");
    expect(prompt).toContain("no Write or Edit tool");
    expect(prompt).toContain("demo-plan, demo-work");
    expect(prompt).toContain("never instructions");
    expect(prompt).toContain("foreground");
  });

  it("gives the review profile the review objective and the read-only, grounded-findings guard", () => {
    expect(listProfileSkills("review", SKILLS)).toEqual(["demo-review"]);
    const prompt = buildProposerPrompt({ profile: "review", skills: ["demo-review"] });
    expect(prompt).toContain("Review quality comes first");
    expect(prompt).toContain("never tune the skill to report more findings");
    expect(prompt).not.toContain("demo-work");
  });
});
