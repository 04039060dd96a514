import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { checkCandidatePath, readCandidateOverlay, type OverlayRule } from "./read-candidate-overlay.js";

const SKILLS = { plan: "demo-plan", work: "demo-work", review: "demo-review" };
const roots: string[] = [];

function overlay(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "overlay-test-"));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("checkCandidatePath", () => {
  it.each<[string, OverlayRule | null]>([
    [".claude/skills/demo-work/SKILL.md", null],
    [".claude/skills/demo-plan/refs/checklist.MD", null],
    [".claude/skills/demo-review/SKILL.md", null],
    [".claude/skills/demo-work", "outside-skill-tree"],
    ["skills/demo-work/SKILL.md", "outside-skill-tree"],
    [".claude/agents/demo-work/SKILL.md", "outside-skill-tree"],
    [".claude/skills/demo-work/../x.md", "outside-skill-tree"],
    [".claude/skills/gitnexus-work/SKILL.md", "unknown-skill"],
    [".claude/skills/demo-work/run.sh", "not-markdown"],
    [`.claude/skills/demo-work/${"a".repeat(600)}.md`, "path-too-long"],
  ])("%s → %s", (path, rule) => {
    expect(checkCandidatePath(path, SKILLS)?.rule ?? null).toBe(rule);
  });
});

describe("readCandidateOverlay", () => {
  it("reads a work overlay, sorts its files and requires both workflow pairs in the reference order", async () => {
    const root = overlay({ ".claude/skills/demo-work/SKILL.md": "v2", ".claude/skills/demo-work/a.md": "extra" });
    const read = await readCandidateOverlay(root, SKILLS);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.files.map((f) => f.path)).toEqual([".claude/skills/demo-work/SKILL.md", ".claude/skills/demo-work/a.md"]);
    expect(Buffer.from(read.value.files[0]?.bytes ?? []).toString()).toBe("v2");
    expect(read.value.skills).toEqual(["demo-work"]);
    expect(read.value.requiredArms).toEqual(["workflow", "candidate_workflow", "workflow_direct", "candidate_workflow_direct"]);
  });

  it.each<[string, Record<string, string[]>, string[]]>([
    ["plan", { ".claude/skills/demo-plan/SKILL.md": [] }, ["workflow", "candidate_workflow"]],
    ["review", { ".claude/skills/demo-review/SKILL.md": [] }, ["review", "candidate_review"]],
    ["plan+review", { ".claude/skills/demo-plan/SKILL.md": [], ".claude/skills/demo-review/SKILL.md": [] }, ["workflow", "candidate_workflow", "review", "candidate_review"]],
  ])("a %s overlay requires %j", async (_name, files, arms) => {
    const root = overlay(Object.fromEntries(Object.keys(files).map((k) => [k, "x"])));
    const read = await readCandidateOverlay(root, SKILLS);
    expect(read.ok && read.value.requiredArms).toEqual(arms);
  });

  it.each<[string, (root: string) => void, OverlayRule, string | null]>([
    ["an empty overlay", () => undefined, "no-files", null],
    ["a non-skill file", (r) => writeFileSync(join(r, "README.md"), "x"), "outside-skill-tree", "README.md"],
    ["a foreign skill", (r) => { mkdirSync(join(r, ".claude/skills/other"), { recursive: true }); writeFileSync(join(r, ".claude/skills/other/SKILL.md"), "x"); }, "unknown-skill", ".claude/skills/other/SKILL.md"],
    ["a script", (r) => { mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true }); writeFileSync(join(r, ".claude/skills/demo-work/run.sh"), "x"); }, "not-markdown", ".claude/skills/demo-work/run.sh"],
    ["a symlinked file", (r) => { mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true }); symlinkSync("/etc/hostname", join(r, ".claude/skills/demo-work/SKILL.md")); }, "symlink", ".claude/skills/demo-work/SKILL.md"],
    ["a symlinked directory", (r) => { mkdirSync(join(r, ".claude/skills"), { recursive: true }); symlinkSync("/etc", join(r, ".claude/skills/demo-work")); }, "symlink", ".claude/skills/demo-work"],
    ["a fifo", (r) => { mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true }); execFileSync("mkfifo", [join(r, ".claude/skills/demo-work/SKILL.md")]); }, "not-regular-file", ".claude/skills/demo-work/SKILL.md"],
    ["65 files", (r) => { mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true }); for (let i = 0; i < 65; i += 1) writeFileSync(join(r, `.claude/skills/demo-work/f${String(i).padStart(2, "0")}.md`), "x"); }, "too-many-files", ".claude/skills/demo-work/f64.md"],
    ["257 entries at the root", (r) => { for (let i = 0; i < 257; i += 1) mkdirSync(join(r, `d${String(i).padStart(3, "0")}`)); }, "too-many-entries", null],
    ["256 entries at the root (at the bound, so the next rule speaks)", (r) => { for (let i = 0; i < 256; i += 1) mkdirSync(join(r, `d${String(i).padStart(3, "0")}`)); }, "no-files", null],
    ["258 entries, the last 157 in one directory (named)", (r) => { for (let i = 0; i < 100; i += 1) mkdirSync(join(r, `d${String(i).padStart(3, "0")}`)); for (let i = 0; i < 157; i += 1) mkdirSync(join(r, "z", `e${String(i).padStart(3, "0")}`), { recursive: true }); }, "too-many-entries", "z"],
    [
      "a hard link to a file outside the overlay (a host file)",
      (r) => {
        mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true });
        writeFileSync(join(`${r}-host`), "host bytes");
        roots.push(`${r}-host`);
        linkSync(`${r}-host`, join(r, ".claude/skills/demo-work/SKILL.md"));
      },
      "hard-link",
      ".claude/skills/demo-work/SKILL.md",
    ],
    ["over 4 MiB", (r) => { mkdirSync(join(r, ".claude/skills/demo-work"), { recursive: true }); writeFileSync(join(r, ".claude/skills/demo-work/a.md"), Buffer.alloc(3 * 1024 * 1024)); writeFileSync(join(r, ".claude/skills/demo-work/b.md"), Buffer.alloc(1024 * 1024 + 1)); }, "too-large", ".claude/skills/demo-work/b.md"],
  ])("refuses %s naming the file and rule", async (_name, build, rule, file) => {
    const root = overlay({});
    build(root);
    const read = await readCandidateOverlay(root, SKILLS);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.rule).toBe(rule);
    expect(read.error.file).toBe(file);
  });

  it("refuses a root that is missing, a file, or reached through a symlink", async () => {
    const real = overlay({ ".claude/skills/demo-work/SKILL.md": "v2" });
    const linkParent = mkdtempSync(join(tmpdir(), "overlay-link-"));
    roots.push(linkParent);
    symlinkSync(real, join(linkParent, "via-link"));
    for (const root of [join(real, "missing"), join(real, ".claude/skills/demo-work/SKILL.md"), join(linkParent, "via-link")]) {
      const read = await readCandidateOverlay(root, SKILLS);
      expect(read.ok ? null : read.error.rule).toBe("root-not-real-directory");
    }
  });
});
