import { describe, expect, it } from "vitest";
import { checkOverlayPath, type OverlayPathRule } from "./overlay-files.js";

const DEMO = ["demo-plan", "demo-work", "demo-review"];

describe("checkOverlayPath (the one rule of read and apply time)", () => {
  it.each<[string, readonly string[], OverlayPathRule | null]>([
    [".claude/skills/demo-work/SKILL.md", DEMO, null],
    [".claude/skills/demo-plan/refs/a.MD", DEMO, null],
    [".claude/skills/gitnexus-work/SKILL.md", ["gitnexus-plan", "gitnexus-work", "gitnexus-review"], null],
    // The skill set is the caller's: the same path is refused for a suite that does not evaluate the skill.
    [".claude/skills/demo-work/SKILL.md", ["gitnexus-plan", "gitnexus-work", "gitnexus-review"], "unknown-skill"],
    [".claude/skills/gitnexus-work/SKILL.md", DEMO, "unknown-skill"],
    [".claude/skills/demo-work/run.sh", DEMO, "not-markdown"],
    [".claude/skills/demo-work", DEMO, "outside-skill-tree"],
    ["skills/demo-work/SKILL.md", DEMO, "outside-skill-tree"],
    [".claude/skills/demo-work/../x.md", DEMO, "outside-skill-tree"],
    [".claude/skills/demo-work//x.md", DEMO, "outside-skill-tree"],
    [".claude/skills/demo-work/a\\b.md", DEMO, "outside-skill-tree"],
    [".claude/skills/demo-work/a\u0000.md", DEMO, "outside-skill-tree"],
    [`.claude/skills/demo-work/${"a".repeat(480)}.md`, DEMO, null],
    [`.claude/skills/demo-work/${"a".repeat(600)}.md`, DEMO, "path-too-long"],
    // 512 bytes is a UTF-8 limit: 200 three-byte characters are 600 bytes.
    [`.claude/skills/demo-work/${"\u4e00".repeat(200)}.md`, DEMO, "path-too-long"],
  ])("%s with %j → %s", (path, skills, rule) => {
    expect(checkOverlayPath(path, skills)?.rule ?? null).toBe(rule);
  });
});
