import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPromotedOverlay, isPromotionError, nodeFsOperations } from "@wfbench/promotion-gate";
import { isEvolveLoopError } from "./errors.js";
import { recoverInterruptedApply } from "./recover-interrupted-apply.js";

const SKILLS = ["demo-plan", "demo-work", "demo-review"];
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
const HEX = "0123456789abcdef0123456789abcdef";

describe("recoverInterruptedApply", () => {
  let root: string;
  let repo: string;
  let victim: string;
  let lines: string[];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "wfbench-recover-test-"));
    repo = join(root, "repo");
    mkdirSync(join(repo, ".claude/skills/demo-work"), { recursive: true });
    writeFileSync(join(repo, ".claude/skills/demo-work/SKILL.md"), "new\n");
    victim = join(root, "victim.txt");
    writeFileSync(victim, "precious\n");
    lines = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const entry = (overrides: Record<string, unknown> = {}) => ({
    target: ".claude/skills/demo-work/SKILL.md",
    destination: join(repo, ".claude/skills/demo-work/SKILL.md"),
    candidate: join(repo, ".claude/skills/demo-work", `.wfevolve-${HEX}`),
    candidate_exists: false,
    backup: join(repo, ".claude/skills/demo-work", `.wfevolve-${HEX.split("").reverse().join("")}`),
    backup_exists: true,
    state: "published",
    base_sha256: sha("old\n"),
    candidate_sha256: sha("new\n"),
    original_ino: "1",
    candidate_ino: "2",
    ...overrides,
  });
  const journal = (backups: readonly Record<string, unknown>[], mode = 0o600, name = ".wfbench-overlay-recovery-20260101T000000000000Z.json"): string => {
    const path = join(repo, name);
    writeFileSync(path, JSON.stringify({ failure: null, transaction_state: "published", rollback_failures: [], backups }), { mode });
    chmodSync(path, mode);
    return path;
  };
  const recover = () => recoverInterruptedApply(repo, SKILLS, (line) => lines.push(line));

  it("finishes a journal the apply itself wrote: its temporaries under the skill tree go, the journal goes", async () => {
    const backup = entry().backup;
    writeFileSync(backup, "old\n");
    const path = journal([entry()]);
    await recover();
    expect(existsSync(backup)).toBe(false);
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(join(repo, ".claude/skills/demo-work/SKILL.md"), "utf8")).toBe("new\n");
    expect(lines.join("")).toMatch(/recovered an interrupted apply/u);
  });

  it("accepts the journal a real apply leaves when its cleanup fails, and finishes it", async () => {
    writeFileSync(join(repo, ".claude/skills/demo-work/SKILL.md"), "old\n");
    mkdirSync(join(repo, "gitnexus/skills/demo-work"), { recursive: true });
    writeFileSync(join(repo, "gitnexus/skills/demo-work/SKILL.md"), "old\n");
    // Cleanup of the temporaries fails after publication, so the apply leaves its journal behind.
    const fsOps = {
      ...nodeFsOperations,
      unlink: (path: string): void => {
        if (path.includes(".wfevolve-")) throw new Error("cleanup refused");
        nodeFsOperations.unlink(path);
      },
    };
    const files = [{ path: ".claude/skills/demo-work/SKILL.md", bytes: Buffer.from("new\n") }];
    const bases = { ".claude/skills/demo-work/SKILL.md": sha("old\n"), "gitnexus/skills/demo-work/SKILL.md": sha("old\n") };
    let thrown: unknown = null;
    try {
      applyPromotedOverlay({ repoRoot: repo, files, skills: SKILLS, expectedTargetBases: bases, now: new Date("2026-01-01T00:00:00Z"), fsOps });
    } catch (error) {
      thrown = error;
    }
    expect(isPromotionError(thrown)).toBe(true);
    const journals = readdirSync(repo).filter((name) => name.startsWith(".wfbench-overlay-recovery-"));
    expect(journals).toHaveLength(1);
    await recover();
    expect(readdirSync(repo).filter((name) => name.startsWith(".wfbench-overlay-recovery-"))).toEqual([]);
    expect(readdirSync(join(repo, ".claude/skills/demo-work")).filter((name) => name.startsWith(".wfevolve-"))).toEqual([]);
    expect(readFileSync(join(repo, "gitnexus/skills/demo-work/SKILL.md"), "utf8")).toBe("new\n");
  });

  it("refuses a planted journal naming paths outside the skill tree, and touches nothing it names", async () => {
    const path = journal([entry({ backup: victim }), entry({ target: "../victim.txt", destination: victim, candidate: victim })]);
    await expect(recover()).rejects.toSatisfy((error) => isEvolveLoopError(error) && error.code === "EVOLVE_LOOP_BAD_INPUT" && /\(invalid-entry\)/u.test(error.message));
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(existsSync(path)).toBe(true);
  });

  it("refuses a temporary that is not the apply's own .wfevolve-<32 hex> name beside its destination", async () => {
    const other = join(repo, ".claude/skills/demo-work/NOTES.md");
    writeFileSync(other, "keep\n");
    journal([entry({ backup: other })]);
    await expect(recover()).rejects.toThrow(/\(invalid-entry\): recovery journal entry .* names the temporary/u);
    expect(readFileSync(other, "utf8")).toBe("keep\n");
  });

  it("passes the suite's skills to promotion-gate: a skill file of another suite is refused and kept", async () => {
    const otherDir = join(repo, ".claude/skills/other-skill");
    mkdirSync(otherDir, { recursive: true });
    const backup = join(otherDir, `.wfevolve-${HEX}`);
    writeFileSync(backup, "keep\n");
    const target = ".claude/skills/other-skill/SKILL.md";
    journal([entry({ target, destination: join(repo, target), candidate: join(otherDir, `.wfevolve-${HEX.split("").reverse().join("")}`), backup })]);
    await expect(recover()).rejects.toThrow(/\(invalid-entry\).*demo-plan, demo-work, demo-review/u);
    expect(readFileSync(backup, "utf8")).toBe("keep\n");
  });

  it("refuses a journal the apply could not have written: group/other-readable (a checked-out file) or a link", async () => {
    const backup = entry().backup;
    writeFileSync(backup, "old\n");
    const path = journal([entry()], 0o644);
    await expect(recover()).rejects.toThrow(/\(journal-untrusted\).*owner-only/u);
    expect(existsSync(backup)).toBe(true);
    rmSync(path);
    const outside = join(root, "outside.json");
    writeFileSync(outside, JSON.stringify({ failure: null, transaction_state: "published", rollback_failures: [], backups: [entry()] }), { mode: 0o600 });
    symlinkSync(outside, join(repo, ".wfbench-overlay-recovery-20260101T000000000001Z.json"));
    await expect(recover()).rejects.toThrow(/\(journal-untrusted\).*regular file/u);
    expect(existsSync(backup)).toBe(true);
  });

  it("leaves alone a file whose name is not one the apply gives its journal", async () => {
    const backup = entry().backup;
    writeFileSync(backup, "old\n");
    journal([entry()], 0o600, ".wfbench-overlay-recovery-x.json");
    await expect(recover()).resolves.toBeUndefined();
    expect(existsSync(backup)).toBe(true);
    expect(existsSync(join(repo, ".wfbench-overlay-recovery-x.json"))).toBe(true);
  });

  it("refuses a destination reached through a linked directory", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, `.wfevolve-${HEX}`), "x");
    rmSync(join(repo, ".claude/skills/demo-work"), { recursive: true });
    symlinkSync(elsewhere, join(repo, ".claude/skills/demo-work"));
    journal([entry({ backup_exists: false })]);
    await expect(recover()).rejects.toThrow(/\(invalid-destination\).*symlink/u);
    expect(existsSync(join(elsewhere, `.wfevolve-${HEX}`))).toBe(true);
  });
});
