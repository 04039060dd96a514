import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeFsOperations, type FsOperations } from "./fs-operations.js";
import { isOverlayTemporaryName } from "./overlay-files.js";
import { recoverOverlayTransaction, type RecoveryRefusal } from "./recovery-journal.js";

const SKILLS = ["demo-plan", "demo-work", "demo-review"];
const TARGET = ".claude/skills/demo-work/SKILL.md";
const HEX_A = "0123456789abcdef0123456789abcdef";
const HEX_B = "fedcba9876543210fedcba9876543210";
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * A planted journal is one the apply never wrote: committed to the repository, copied in, or crafted by a hostile
 * agent. Each case below is one recovery would otherwise act on (unlink or rename what it names); the host evidence
 * is that the file it names, usually outside the repository, still holds its bytes afterwards.
 */
describe("recoverOverlayTransaction", () => {
  let scratch: string;
  let repo: string;
  let skillDir: string;
  let victim: string;
  beforeEach(() => {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "promotion-recovery-")));
    repo = path.join(scratch, "repo");
    skillDir = path.join(repo, ".claude/skills/demo-work");
    fs.mkdirSync(skillDir, { recursive: true });
    fs.writeFileSync(path.join(skillDir, "SKILL.md"), "new\n");
    victim = path.join(scratch, "victim.txt");
    fs.writeFileSync(victim, "precious\n");
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /** A published entry as the apply writes it: its backup is the only file recovery will remove. */
  const entry = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    target: TARGET,
    destination: path.join(repo, TARGET),
    candidate: path.join(skillDir, `.wfevolve-${HEX_A}`),
    candidate_exists: false,
    backup: path.join(skillDir, `.wfevolve-${HEX_B}`),
    backup_exists: true,
    state: "published",
    base_sha256: sha("old\n"),
    candidate_sha256: sha("new\n"),
    original_ino: "1",
    candidate_ino: "2",
    ...overrides,
  });
  const writeJournal = (backups: readonly Record<string, unknown>[], options: { mode?: number; state?: string; padding?: number } = {}): string => {
    const journalPath = path.join(repo, ".wfbench-overlay-recovery-20260101T000000000000Z.json");
    const text = `${JSON.stringify({ failure: null, transaction_state: options.state ?? "published", rollback_failures: [], backups })}${" ".repeat(options.padding ?? 0)}\n`;
    fs.writeFileSync(journalPath, text, { mode: options.mode ?? 0o600 });
    fs.chmodSync(journalPath, options.mode ?? 0o600);
    return journalPath;
  };
  const expectRefused = (result: ReturnType<typeof recoverOverlayTransaction>, code: RecoveryRefusal["code"], message?: RegExp): void => {
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(code);
    if (message !== undefined) expect(result.error.message).toMatch(message);
  };

  describe("with a journal the apply wrote", () => {
    it("removes the backups of a published transaction and the journal, with or without the suite's skills", () => {
      for (const options of [undefined, { skills: SKILLS }]) {
        const backup = path.join(skillDir, `.wfevolve-${HEX_B}`);
        fs.writeFileSync(backup, "old\n");
        const journalPath = writeJournal([entry()]);
        const result = options === undefined ? recoverOverlayTransaction(journalPath) : recoverOverlayTransaction(journalPath, nodeFsOperations, options);
        expect(result).toEqual({ ok: true, value: { outcome: "completed", restored: [] } });
        expect(fs.existsSync(backup)).toBe(false);
        expect(fs.existsSync(journalPath)).toBe(false);
      }
    });

    it("accepts a mirror destination of an allowed skill", () => {
      const mirrorDir = path.join(repo, "gitnexus-claude-plugin/skills/demo-work");
      fs.mkdirSync(mirrorDir, { recursive: true });
      const backup = path.join(mirrorDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "old\n");
      const target = "gitnexus-claude-plugin/skills/demo-work/SKILL.md";
      const journalPath = writeJournal([entry({ target, destination: path.join(repo, target), candidate: path.join(mirrorDir, `.wfevolve-${HEX_A}`), backup })]);
      expect(recoverOverlayTransaction(journalPath, nodeFsOperations, { skills: SKILLS }).ok).toBe(true);
      expect(fs.existsSync(backup)).toBe(false);
    });
  });

  describe("with a journal the apply could not have written", () => {
    it.each([
      ["group/other-readable (a checked-out file)", 0o644],
      ["group-writable", 0o620],
      ["world-writable", 0o602],
    ])("refuses one that is %s as journal-untrusted, touching nothing", (_label, mode) => {
      const backup = path.join(skillDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "old\n");
      const journalPath = writeJournal([entry()], { mode });
      expectRefused(recoverOverlayTransaction(journalPath), "journal-untrusted", /owner-only/u);
      expect(fs.existsSync(backup)).toBe(true);
      expect(fs.existsSync(journalPath)).toBe(true);
    });

    it("refuses a symlink to a journal elsewhere as journal-untrusted", () => {
      const outside = path.join(scratch, "outside.json");
      fs.writeFileSync(outside, JSON.stringify({ failure: null, transaction_state: "published", rollback_failures: [], backups: [entry({ backup: victim })] }), { mode: 0o600 });
      const linked = path.join(repo, ".wfbench-overlay-recovery-x.json");
      fs.symlinkSync(outside, linked);
      expectRefused(recoverOverlayTransaction(linked), "journal-untrusted", /regular file/u);
      expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    });

    it("refuses a journal that is a second name of a file elsewhere (hard-linked) as journal-untrusted", () => {
      const backup = path.join(skillDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "old\n");
      const journalPath = writeJournal([entry()]);
      fs.linkSync(journalPath, path.join(scratch, "second-name.json"));
      expectRefused(recoverOverlayTransaction(journalPath), "journal-untrusted", /hard-linked/u);
      expect(fs.existsSync(backup)).toBe(true);
    });

    it("refuses a journal owned by another user as journal-untrusted", () => {
      const backup = path.join(skillDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "old\n");
      const journalPath = writeJournal([entry()]);
      const uid = fs.lstatSync(journalPath).uid;
      const fsOps: FsOperations = {
        ...nodeFsOperations,
        lstat: (target) => (target === journalPath ? { ...nodeFsOperations.lstat(target), uid: uid + 1 } : nodeFsOperations.lstat(target)),
      };
      expectRefused(recoverOverlayTransaction(journalPath, fsOps), "journal-untrusted", /another user/u);
      expect(fs.existsSync(backup)).toBe(true);
    });

    it("refuses a journal larger than any apply writes as journal-untrusted", () => {
      const backup = path.join(skillDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "old\n");
      const journalPath = writeJournal([entry()], { padding: 4 * 1024 * 1024 });
      expectRefused(recoverOverlayTransaction(journalPath), "journal-untrusted", /larger than/u);
      expect(fs.existsSync(backup)).toBe(true);
    });

    it("refuses a missing journal as journal-unreadable and malformed JSON as journal-malformed", () => {
      expectRefused(recoverOverlayTransaction(path.join(repo, ".wfbench-overlay-recovery-none.json")), "journal-unreadable", /unreadable/u);
      const journalPath = path.join(repo, ".wfbench-overlay-recovery-bad.json");
      fs.writeFileSync(journalPath, "{not json", { mode: 0o600 });
      expectRefused(recoverOverlayTransaction(journalPath), "journal-malformed", /malformed/u);
      fs.writeFileSync(journalPath, JSON.stringify({ failure: null }), { mode: 0o600 });
      expectRefused(recoverOverlayTransaction(journalPath), "journal-malformed", /malformed/u);
    });
  });

  describe("with entries naming paths the apply never names", () => {
    it("refuses a backup outside the repository (published: recovery would unlink it)", () => {
      const journalPath = writeJournal([entry({ backup: victim })]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /temporary/u);
      expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
      expect(fs.existsSync(journalPath)).toBe(true);
    });

    it("refuses a destination outside the journal's directory tree", () => {
      const outsideDir = path.join(scratch, "outside/.claude/skills/demo-work");
      fs.mkdirSync(outsideDir, { recursive: true });
      const outsideBackup = path.join(outsideDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(outsideBackup, "precious\n");
      const journalPath = writeJournal([
        entry({ destination: path.join(outsideDir, "SKILL.md"), candidate: path.join(outsideDir, `.wfevolve-${HEX_A}`), backup: outsideBackup }),
      ]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /destination/u);
      expect(fs.readFileSync(outsideBackup, "utf8")).toBe("precious\n");
    });

    it("refuses a '..' target whose temporaries sit beside a file outside the repository", () => {
      // join() normalizes `repo/../victim.txt` to the victim, so only the target's own rule can refuse this.
      const outsideCandidate = path.join(scratch, `.wfevolve-${HEX_A}`);
      fs.writeFileSync(outsideCandidate, "precious\n");
      const journalPath = writeJournal(
        [entry({ target: "../victim.txt", destination: victim, candidate: outsideCandidate, backup: path.join(scratch, `.wfevolve-${HEX_B}`) })],
        { state: "in-progress" },
      );
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /target/u);
      expect(fs.readFileSync(outsideCandidate, "utf8")).toBe("precious\n");
      expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    });

    it("refuses an absolute target", () => {
      const outsideBackup = path.join(scratch, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(outsideBackup, "precious\n");
      const journalPath = writeJournal([entry({ target: victim, destination: victim, candidate: path.join(scratch, `.wfevolve-${HEX_A}`), backup: outsideBackup })]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /target/u);
      expect(fs.readFileSync(outsideBackup, "utf8")).toBe("precious\n");
    });

    it("refuses a target that is no overlay destination (not a skill file or mirror), even without the suite's skills", () => {
      const sourceDir = path.join(repo, "src");
      fs.mkdirSync(sourceDir);
      const backup = path.join(sourceDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "keep\n");
      const target = "src/index.ts";
      const journalPath = writeJournal([entry({ target, destination: path.join(repo, target), candidate: path.join(sourceDir, `.wfevolve-${HEX_A}`), backup })]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /target/u);
      expect(fs.readFileSync(backup, "utf8")).toBe("keep\n");
    });

    it("refuses a skill outside the caller's allow-list when one is given", () => {
      const otherDir = path.join(repo, ".claude/skills/other-skill");
      fs.mkdirSync(otherDir, { recursive: true });
      const backup = path.join(otherDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(backup, "keep\n");
      const target = ".claude/skills/other-skill/SKILL.md";
      const journalPath = writeJournal([entry({ target, destination: path.join(repo, target), candidate: path.join(otherDir, `.wfevolve-${HEX_A}`), backup })]);
      expectRefused(recoverOverlayTransaction(journalPath, nodeFsOperations, { skills: SKILLS }), "invalid-entry", /other-skill/u);
      expect(fs.readFileSync(backup, "utf8")).toBe("keep\n");
    });

    it.each([
      ["a name that is not the apply's .wfevolve-<32 hex>", (dir: string) => path.join(dir, "NOTES.md")],
      ["an upper-case hex name", (dir: string) => path.join(dir, `.wfevolve-${HEX_B.toUpperCase()}`)],
      ["a short hex name", (dir: string) => path.join(dir, `.wfevolve-${HEX_B.slice(1)}`)],
      ["a .wfevolve name in another directory of the tree", (_dir: string) => path.join(repo, `.wfevolve-${HEX_B}`)],
    ])("refuses a temporary with %s", (_label, place) => {
      const other = place(skillDir);
      fs.writeFileSync(other, "keep\n");
      const journalPath = writeJournal([entry({ backup: other })]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-entry", /temporary/u);
      expect(fs.readFileSync(other, "utf8")).toBe("keep\n");
    });

    it("refuses a destination reached through a symlinked directory, before touching any entry", () => {
      const elsewhere = path.join(scratch, "elsewhere");
      fs.mkdirSync(elsewhere);
      const outsideTemporary = path.join(elsewhere, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(outsideTemporary, "precious\n");
      // A first, valid entry would be acted on if the check ran entry by entry.
      const planDir = path.join(repo, ".claude/skills/demo-plan");
      fs.mkdirSync(planDir, { recursive: true });
      const planBackup = path.join(planDir, `.wfevolve-${HEX_B}`);
      fs.writeFileSync(planBackup, "old\n");
      const planTarget = ".claude/skills/demo-plan/SKILL.md";
      fs.rmSync(skillDir, { recursive: true });
      fs.symlinkSync(elsewhere, skillDir);
      const journalPath = writeJournal([
        entry({ target: planTarget, destination: path.join(repo, planTarget), candidate: path.join(planDir, `.wfevolve-${HEX_A}`), backup: planBackup }),
        entry(),
      ]);
      expectRefused(recoverOverlayTransaction(journalPath), "invalid-destination", /symlink/u);
      expect(fs.readFileSync(outsideTemporary, "utf8")).toBe("precious\n");
      expect(fs.existsSync(planBackup)).toBe(true);
    });
  });
});

describe("isOverlayTemporaryName", () => {
  it.each([
    [`.wfevolve-${HEX_A}`, true],
    [`.wfevolve-${HEX_A.toUpperCase()}`, false],
    [`.wfevolve-${HEX_A}0`, false],
    [`.wfevolve-${HEX_A.slice(1)}`, false],
    [`wfevolve-${HEX_A}`, false],
    [`.wfevolve-${HEX_A.slice(2)}/x`, false],
    [`.wfevolve-../../${HEX_A.slice(6)}`, false],
    ["", false],
  ])("%j → %s", (name, expected) => {
    expect(isOverlayTemporaryName(name)).toBe(expected);
  });
});
