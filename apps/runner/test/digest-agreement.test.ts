// The skill fingerprint (cell pipeline, from the files in a cell) and the overlay digest (promotion gate, from the
// validated overlay) are one digest (reference §4.5): a candidate row's skill_digest must equal the overlay digest it
// was measured with. Both order files by Unicode code point, which differs from UTF-16 order above U+FFFF.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { computeSkillFingerprint } from "@wfbench/cell-pipeline";
import { computeOverlayDigest } from "@wfbench/promotion-gate";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// U+FF01 sorts before U+1F600 by code point, but after it by UTF-16 unit (0xFF01 > 0xD83D).
const NAMES = ["！.md", "😀.md", "SKILL.md"];

describe("skill fingerprint and overlay digest", () => {
  it("agree on a skill tree whose names differ in code-point and UTF-16 order", async () => {
    const worktree = mkdtempSync(join(tmpdir(), "wfbench-digest-agree-"));
    dirs.push(worktree);
    const skillDir = join(worktree, ".claude/skills/demo-work");
    mkdirSync(skillDir, { recursive: true });
    const files = NAMES.map((name, index) => ({ path: `.claude/skills/demo-work/${name}`, bytes: Buffer.from(`file ${index}\n`) }));
    for (const file of files) writeFileSync(join(worktree, file.path), file.bytes);
    expect([...NAMES].sort()).not.toEqual([...NAMES].sort((a, b) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0)));

    const fingerprint = await computeSkillFingerprint(worktree, ["demo-work"]);
    expect(fingerprint).toBe(computeOverlayDigest(files));
    expect(fingerprint).toBe(computeOverlayDigest([...files].reverse()));
  });
});
