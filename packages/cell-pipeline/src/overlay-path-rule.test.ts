// Read time (measuring an overlay) and apply time (promoting it) use one overlay path rule with the suite's skills:
// an overlay the runner measures is one applyPromotedOverlay accepts, and the reverse.
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { applyPromotedOverlay, checkOverlayPath, computeOverlayDigest } from "@wfbench/promotion-gate";
import { checkCandidatePath, listSuiteSkills, readCandidateOverlay } from "./read-candidate-overlay.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const DEMO_SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("one overlay path rule at read and apply time", () => {
  it.each([
    ".claude/skills/demo-work/SKILL.md",
    ".claude/skills/demo-review/notes/x.md",
    ".claude/skills/gitnexus-work/SKILL.md",
    ".claude/skills/demo-work/run.sh",
    ".claude/skills/demo-work/../x.md",
    // A backslash in a file name was accepted when read and refused when applied.
    ".claude/skills/demo-work/a\\b.md",
    `.claude/skills/demo-work/${"a".repeat(600)}.md`,
  ])("%s gets the same answer from both", (path) => {
    expect(checkCandidatePath(path, DEMO_SKILLS)?.rule ?? null).toBe(checkOverlayPath(path, listSuiteSkills(DEMO_SKILLS))?.rule ?? null);
  });

  it("refuses a backslash in an overlay file name when reading it", () => {
    expect(checkCandidatePath(".claude/skills/demo-work/a\\b.md", DEMO_SKILLS)).toMatchObject({ rule: "outside-skill-tree", message: expect.stringMatching(/backslash/) });
  });

  it("applies the demo overlay it reads (work-v2 over demo-work) to the demo repository", async () => {
    const read = await readCandidateOverlay(join(ROOT, "tasks/demo/overlays/work-v2"), DEMO_SKILLS);
    if (!read.ok) throw new Error(read.error.message);
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "overlay-rule-repo-")));
    dirs.push(repo);
    cpSync(join(ROOT, "tasks/demo/repos/mathlib"), repo, { recursive: true });
    const file = ".claude/skills/demo-work/SKILL.md";
    const base = createHash("sha256").update(readFileSync(join(repo, file))).digest("hex");
    const applied = applyPromotedOverlay({
      repoRoot: repo,
      files: read.value.files,
      skills: listSuiteSkills(DEMO_SKILLS),
      expectedOverlayDigest: computeOverlayDigest(read.value.files),
      expectedTargetBases: { [file]: base },
      now: new Date(),
    });
    expect(applied).toEqual({ ok: true, value: { written: [file] } });
    expect(readFileSync(join(repo, file))).toEqual(readFileSync(join(ROOT, "tasks/demo/overlays/work-v2", file)));
  });
});
