import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { computeOverlayDigest } from "@wfbench/promotion-gate";
import { afterAll, describe, expect, it } from "vitest";
import { freezeOverlay } from "./freeze-overlay.js";

const SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };
const dir = mkdtempSync(join(tmpdir(), "evolve-freeze-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function overlay(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("freezeOverlay", () => {
  it("copies a valid overlay read-only (files 0400, directories 0500) and returns the source's digest", async () => {
    const source = overlay("ok", { ".claude/skills/demo-work/SKILL.md": "# work v2\n", ".claude/skills/demo-work/notes/extra.md": "more\n" });
    const frozen = await freezeOverlay(source, join(dir, "gen-0/frozen-overlay"), SKILLS);
    const mode = (path: string): number => statSync(join(frozen.root, path)).mode & 0o777;
    expect(mode(".claude/skills/demo-work/SKILL.md")).toBe(0o400);
    expect(mode(".claude/skills/demo-work/notes/extra.md")).toBe(0o400);
    expect([mode(""), mode(".claude"), mode(".claude/skills/demo-work"), mode(".claude/skills/demo-work/notes")]).toEqual([0o500, 0o500, 0o500, 0o500]);
    expect(readFileSync(join(frozen.root, ".claude/skills/demo-work/SKILL.md"), "utf8")).toBe("# work v2\n");
    expect(frozen.digest).toBe(computeOverlayDigest(frozen.overlay.files));
    expect(frozen.overlay.requiredArms).toEqual(["workflow", "candidate_workflow", "workflow_direct", "candidate_workflow_direct"]);
  });

  it("refuses an overlay the runner would refuse, naming the file and rule, and a destination that exists", async () => {
    const bad = overlay("bad", { ".claude/skills/demo-work/run.sh": "echo\n" });
    await expect(freezeOverlay(bad, join(dir, "bad-frozen"), SKILLS)).rejects.toMatchObject({ code: "EVOLVE_LOOP_BAD_INPUT", message: expect.stringMatching(/run\.sh: rule not-markdown/u) });
    const good = overlay("again", { ".claude/skills/demo-work/SKILL.md": "x\n" });
    mkdirSync(join(dir, "taken"));
    await expect(freezeOverlay(good, join(dir, "taken"), SKILLS)).rejects.toMatchObject({ code: "EEXIST" });
  });
});
