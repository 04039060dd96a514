import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OVERLAY, OVERLAY_SKILLS, expectedAfterApply, makeOverlayRepo, sha256, snapshotTree } from "../test/support/overlay-repo.js";
import { applyPromotedOverlay } from "./apply-promoted-overlay.js";
import { OverlayTransactionError } from "./errors.js";
import { nodeFsOperations, type FsOperations } from "./fs-operations.js";
import { computeOverlayDigest, isOverlayTemporaryName } from "./overlay-files.js";
import { isRecoveryJournalName } from "./recovery-journal.js";
import { recoverOverlayTransaction } from "./recovery-journal.js";

const NOW = new Date("2026-07-25T12:00:00.123Z");
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

// A memory-backed directory keeps the hundreds of injected runs fast; the semantics under test are the same.
const FAST_PARENT = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();

function repo(parent?: string) {
  const made = makeOverlayRepo(parent);
  roots.push(made.root);
  return made;
}

type OpName = keyof FsOperations;
const OP_NAMES: OpName[] = ["lstat", "realpath", "readFile", "writeFileExclusive", "link", "rename", "unlink", "fsyncDirectory"];

// Durability is not what these tests observe, so the hundreds of injected runs skip the physical fsyncs; every
// fsync call is still counted and can still be failed. The real operations are exercised by the other tests.
const fastFs: FsOperations = {
  ...nodeFsOperations,
  writeFileExclusive(target, bytes, mode) {
    const fd = fs.openSync(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
    try {
      fs.writeFileSync(fd, bytes);
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
  },
  fsyncDirectory() {},
};

/** Wraps the fs, counting calls; the `failAt`-th call throws (before or after doing its work). */
function faultyFs(failAt: number, mode: "before" | "after", extra?: (op: OpName, args: unknown[]) => void, base: FsOperations = fastFs) {
  let calls = 0;
  const log: string[] = [];
  const ops = {} as Record<OpName, (...args: never[]) => unknown>;
  for (const name of OP_NAMES) {
    ops[name] = (...args: never[]) => {
      calls += 1;
      log.push(name);
      extra?.(name, args);
      if (calls === failAt && mode === "before") throw new Error(`injected failure before ${name} #${calls}`);
      const value = (base[name] as (...a: never[]) => unknown)(...args);
      if (calls === failAt && mode === "after") throw new Error(`injected failure after ${name} #${calls}`);
      return value;
    };
  }
  return { fsOps: ops as unknown as FsOperations, count: () => calls, log };
}

function leftovers(root: string): string[] {
  return Object.keys(snapshotTree(root)).filter((name) => path.basename(name).startsWith(".wfevolve-") || path.basename(name).startsWith(".wfbench-overlay-recovery-"));
}

describe("applyPromotedOverlay on a suite with its own skill names (the demo's demo-work)", () => {
  const SUITE_SKILLS = ["demo-plan", "demo-work", "demo-review"];
  const FILE = ".claude/skills/demo-work/SKILL.md";
  const v2 = { path: FILE, bytes: Buffer.from("# demo-work v2\n") };
  function demoRepo(extra: readonly string[] = []): { root: string; bases: Record<string, string> } {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "promotion-apply-demo-")));
    roots.push(root);
    for (const relative of [FILE, ...extra]) {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), "# demo-work v1\n");
    }
    // What the runner binds: the canonical path and the mirrors the measured repository holds (here none).
    return { root, bases: { [FILE]: sha256(Buffer.from("# demo-work v1\n")) } };
  }

  it("applies an overlay the suite measured, though no gitnexus mirror exists (refused before: fixed gitnexus-* skills)", () => {
    const { root, bases } = demoRepo();
    const result = applyPromotedOverlay({ skills: SUITE_SKILLS, repoRoot: root, files: [v2], expectedOverlayDigest: computeOverlayDigest([v2]), expectedTargetBases: bases, now: NOW });
    expect(result).toEqual({ ok: true, value: { written: [FILE] } });
    expect(fs.readFileSync(path.join(root, FILE), "utf8")).toBe("# demo-work v2\n");
    expect(leftovers(root)).toEqual([]);
  });

  it("refuses the same overlay against another suite's skills", () => {
    const { root, bases } = demoRepo();
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: [v2], expectedTargetBases: bases, now: NOW });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-overlay-path", message: expect.stringMatching(/skill must be one of gitnexus-plan/) } });
    expect(fs.readFileSync(path.join(root, FILE), "utf8")).toBe("# demo-work v1\n");
  });

  it("still refuses a mirror that exists in the repository but was never bound", () => {
    const { root, bases } = demoRepo(["gitnexus/skills/demo-work/SKILL.md"]);
    const result = applyPromotedOverlay({ skills: SUITE_SKILLS, repoRoot: root, files: [v2], expectedTargetBases: bases, now: NOW });
    expect(result).toMatchObject({ ok: false, error: { code: "base-binding-mismatch", message: expect.stringContaining('unexpected=["gitnexus/skills/demo-work/SKILL.md"]') } });
  });

  it("still refuses a bound mirror that has gone missing", () => {
    const { root } = demoRepo();
    const bases = { [FILE]: sha256(Buffer.from("# demo-work v1\n")), "gitnexus/skills/demo-work/SKILL.md": "0".repeat(64) };
    const result = applyPromotedOverlay({ skills: SUITE_SKILLS, repoRoot: root, files: [v2], expectedTargetBases: bases, now: NOW });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-destination" } });
  });
});

describe("applyPromotedOverlay", () => {
  it("writes every mirror, keeps modes, returns canonical paths first and leaves no temporaries", () => {
    const { root, bases } = repo();
    const expected = expectedAfterApply(root);
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedOverlayDigest: computeOverlayDigest(OVERLAY), expectedTargetBases: bases, now: NOW });
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.written).toEqual([
      ".claude/skills/gitnexus-review/SKILL.md",
      ".claude/skills/gitnexus-work/SKILL.md",
      "gitnexus/skills/gitnexus-review/SKILL.md",
      "gitnexus-claude-plugin/skills/gitnexus-review/SKILL.md",
      "gitnexus-cursor-integration/skills/gitnexus-review/SKILL.md",
      "gitnexus/skills/gitnexus-work/SKILL.md",
      "gitnexus-claude-plugin/skills/gitnexus-work/SKILL.md",
    ]);
    expect(snapshotTree(root)).toEqual(expected);
  });

  it("refuses drift before writing anything", () => {
    const { root, bases } = repo();
    fs.writeFileSync(path.join(root, "gitnexus/skills/gitnexus-work/SKILL.md"), "edited\n");
    const before = snapshotTree(root);
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW });
    expect(result).toEqual({
      ok: false,
      error: {
        code: "base-binding-mismatch",
        message: 'overlay destination base binding mismatch: missing=[]; unexpected=[]; drifted=["gitnexus/skills/gitnexus-work/SKILL.md"]',
      },
    });
    expect(snapshotTree(root)).toEqual(before);
  });

  it("refuses missing and unexpected bindings", () => {
    const { root, bases } = repo();
    const { [".claude/skills/gitnexus-work/SKILL.md"]: _dropped, ...rest } = bases;
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: { ...rest, "other.md": "0" }, now: NOW });
    expect(result.ok ? "" : result.error.message).toBe(
      'overlay destination base binding mismatch: missing=["other.md"]; unexpected=[".claude/skills/gitnexus-work/SKILL.md"]; drifted=[]',
    );
  });

  it("refuses an overlay that no longer matches its digest", () => {
    const { root, bases } = repo();
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedOverlayDigest: "0".repeat(64), expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.code).toBe("overlay-digest-mismatch");
  });

  it.each([
    [".claude/skills/other/SKILL.md", /skill must be one of/],
    [".claude/skills/gitnexus-work/run.sh", /Markdown/],
    [".claude/skills/gitnexus-work/../x.md", /'\.\.'/],
  ])("refuses the overlay path %s", (overlayPath, message) => {
    const { root, bases } = repo();
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: [{ path: overlayPath, bytes: Buffer.from("x") }], expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.message).toMatch(message);
  });

  it("refuses a destination missing at apply time", () => {
    const { root, bases } = repo();
    fs.rmSync(path.join(root, "gitnexus-claude-plugin/skills/gitnexus-work/SKILL.md"));
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.code).toBe("invalid-destination");
  });

  it("refuses a symlinked ancestor and a symlinked destination", () => {
    const { root, bases } = repo();
    fs.renameSync(path.join(root, "gitnexus/skills"), path.join(root, "real-skills"));
    fs.symlinkSync(path.join(root, "real-skills"), path.join(root, "gitnexus/skills"));
    const before = snapshotTree(root);
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.message).toMatch(/must not be a symlink/);
    expect(snapshotTree(root)).toEqual(before);

    const second = repo();
    const destination = path.join(second.root, ".claude/skills/gitnexus-work/SKILL.md");
    fs.renameSync(destination, `${destination}.real`);
    fs.symlinkSync(`${destination}.real`, destination);
    const refused = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: second.root, files: OVERLAY, expectedTargetBases: second.bases, now: NOW });
    expect(refused.ok ? "" : refused.error.code).toBe("invalid-destination");
  });

  it("refuses a destination hard-linked to a file outside the tree, writing nothing", () => {
    const { root, bases } = repo();
    const destination = path.join(root, "gitnexus-claude-plugin/skills/gitnexus-work/SKILL.md");
    const outside = `${root}-host-file`;
    fs.copyFileSync(destination, outside);
    roots.push(outside);
    fs.rmSync(destination);
    fs.linkSync(outside, destination);
    const before = snapshotTree(root);
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.code).toBe("invalid-destination");
    expect(result.ok ? "" : result.error.message).toMatch(/hard-linked elsewhere \(2 links\)/u);
    expect(snapshotTree(root)).toEqual(before);
    expect(fs.statSync(outside).nlink).toBe(2);
  });

  it("refuses a repository root reached through a symlink", () => {
    const { root, bases } = repo();
    const link = `${root}-link`;
    fs.symlinkSync(root, link);
    roots.push(link);
    const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: link, files: OVERLAY, expectedTargetBases: bases, now: NOW });
    expect(result.ok ? "" : result.error.code).toBe("invalid-repo-root");
  });

  it("names its temporaries by the rule recovery checks, and writes nothing when randomHex breaks it", () => {
    const { root, bases } = repo();
    const before = snapshotTree(root);
    let error: unknown;
    try {
      applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, randomHex: () => "../../escape" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OverlayTransactionError);
    expect((error as OverlayTransactionError).code).toBe("PROMOTION_APPLY_ROLLED_BACK");
    expect(((error as Error).cause as { code?: unknown }).code).toBe("PROMOTION_INVALID_TEMPORARY_NAME");
    expect(snapshotTree(root)).toEqual(before);

    // Every temporary a real apply names (seen through its journal's entries) is one isOverlayTemporaryName accepts.
    const named: string[] = [];
    const fsOps: FsOperations = {
      ...nodeFsOperations,
      writeFileExclusive(target, bytes, mode) {
        named.push(path.basename(target));
        nodeFsOperations.writeFileExclusive(target, bytes, mode);
      },
    };
    expect(applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, fsOps }).ok).toBe(true);
    const staged = named.filter((name) => !name.startsWith(".wfbench-overlay-recovery-"));
    expect(staged).toHaveLength(7);
    expect(staged.every(isOverlayTemporaryName)).toBe(true);
    // And its journal is named so recovery finds it: the rule callers list the repository root with.
    // The journal is written to a `.tmp` beside it and renamed into place; the name it lands under is the rule's.
    const journals = named.filter((name) => name.startsWith(".wfbench-overlay-recovery-")).map((name) => name.replace(/\.[^.]+\.tmp$/u, ""));
    expect(journals.length).toBeGreaterThan(0);
    expect(journals.every(isRecoveryJournalName)).toBe(true);
    expect(isRecoveryJournalName(".wfbench-overlay-recovery-x.json")).toBe(false);
    expect(isRecoveryJournalName("a/.wfbench-overlay-recovery-20260725T120000123000Z.json")).toBe(false);
  });

  describe("a failure injected at every step", () => {
    const { root: probeRoot, bases: probeBases } = makeOverlayRepo();
    const probe = faultyFs(0, "before");
    applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: probeRoot, files: OVERLAY, expectedTargetBases: probeBases, now: NOW, fsOps: probe.fsOps });
    fs.rmSync(probeRoot, { recursive: true, force: true });
    const steps = Array.from({ length: probe.count() }, (_, index) => index + 1);
    // "after" differs from "before" only for operations that change the filesystem.
    const mutating = new Set<string>(["writeFileExclusive", "link", "rename", "unlink"]);
    const cases = steps.flatMap((step) => (mutating.has(probe.log[step - 1] ?? "") ? [[step, "before"] as const, [step, "after"] as const] : [[step, "before"] as const]));

    it("has a non-trivial number of steps to inject into", () => {
      expect(steps.length).toBeGreaterThan(60);
    });

    it.each(cases)(
      "step %i (%s the operation) leaves all-old or all-new bytes, and a recovery file whenever temporaries remain",
      (step, mode) => {
        const { root, bases } = repo(FAST_PARENT);
        const before = snapshotTree(root);
        const after = expectedAfterApply(root);
        const injected = faultyFs(step, mode);
        let outcome: "applied" | "refused" | OverlayTransactionError;
        try {
          const result = applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, fsOps: injected.fsOps });
          outcome = result.ok ? "applied" : "refused";
        } catch (error) {
          if (!(error instanceof OverlayTransactionError)) throw error;
          outcome = error;
        }
        const current = snapshotTree(root);
        const visible = Object.fromEntries(Object.entries(current).filter(([name]) => !leftovers(root).includes(name)));
        if (outcome === "refused") {
          expect(current).toEqual(before);
          return;
        }
        if (outcome === "applied") {
          // A fault in a step whose failure is tolerated (e.g. an existence probe) must still leave a clean apply.
          expect(current).toEqual(after);
          return;
        }
        if (outcome.code === "PROMOTION_APPLY_ROLLED_BACK") {
          expect(current).toEqual(before);
          expect(outcome.recoveryPath).toBeNull();
          return;
        }
        expect(outcome.recoveryPath).not.toBeNull();
        expect(fs.existsSync(outcome.recoveryPath as string)).toBe(true);
        const journal = JSON.parse(fs.readFileSync(outcome.recoveryPath as string, "utf8")) as { transaction_state: string; backups: unknown[] };
        expect(journal.transaction_state).toBe(outcome.transactionState);
        expect(journal.backups).toHaveLength(7);
        if (outcome.transactionState === "published") expect(visible).toEqual(after);
        if (outcome.transactionState === "rolled-back") expect(visible).toEqual(before);
        // Recovery from the journal always converges on a clean tree.
        const recovered = recoverOverlayTransaction(outcome.recoveryPath as string);
        expect(recovered.ok).toBe(true);
        expect(snapshotTree(root)).toEqual(outcome.transactionState === "published" ? after : before);
      },
    );
  });

  it("preserves an edit racing the swap, rolls back the rest and leaves no temporaries", () => {
    const { root, bases } = repo();
    const before = snapshotTree(root);
    const raced = path.join(root, "gitnexus/skills/gitnexus-work/SKILL.md");
    let renames = 0;
    const { fsOps } = faultyFs(0, "before", (op, args) => {
      if (op === "rename" && String(args[1]) === raced && (renames += 1) === 1) fs.appendFileSync(raced, "raced\n");
    });
    let error: unknown;
    try {
      applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, fsOps });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OverlayTransactionError);
    expect((error as OverlayTransactionError).code).toBe("PROMOTION_APPLY_ROLLED_BACK");
    expect((error as Error).message).toMatch(/parity check failed/);
    // The stable reason string of reference §9.5/§10.
    expect((error as Error).message).toMatch(/atomic overlay exchange parity check failed/);
    expect(snapshotTree(root)).toEqual({ ...before, "gitnexus/skills/gitnexus-work/SKILL.md": `640:base of gitnexus/skills/gitnexus-work/SKILL.md\nraced\n` });
    expect(leftovers(root)).toEqual([]);
  });

  it("keeps an edit made after publish and reports an incomplete rollback with a recovery file", () => {
    const { root, bases } = repo();
    const edited = path.join(root, ".claude/skills/gitnexus-review/SKILL.md");
    let lastRename = 0;
    const { fsOps } = faultyFs(0, "before", (op, args) => {
      // After the last destination lands, someone edits the first one; then final verification fails.
      if (op === "rename" && String(args[1]).endsWith("gitnexus-work/SKILL.md") && String(args[1]).includes("gitnexus-claude-plugin") && (lastRename += 1) === 1) {
        fs.writeFileSync(edited, "concurrent edit\n");
      }
    });
    let error: OverlayTransactionError | undefined;
    try {
      applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, fsOps });
    } catch (caught) {
      error = caught as OverlayTransactionError;
    }
    expect(error?.code).toBe("PROMOTION_APPLY_ROLLBACK_INCOMPLETE");
    expect(error?.message).toMatch(/rollback was incomplete; recovery: .*\.wfbench-overlay-recovery-20260725T120000123000Z\.json/);
    expect(fs.readFileSync(edited, "utf8")).toBe("concurrent edit\n");
    const journal = JSON.parse(fs.readFileSync(error?.recoveryPath as string, "utf8")) as { transaction_state: string; backups: Array<{ target: string; state: string }> };
    expect(journal.transaction_state).toBe("rollback-incomplete");
    expect(journal.backups.find((entry) => entry.target === ".claude/skills/gitnexus-review/SKILL.md")?.state).toBe("rollback-failed");
    expect(journal.backups.filter((entry) => entry.state === "rolled-back")).toHaveLength(6);
  });

  it("reports a cleanup failure after publish as 'transaction is published … cleanup was incomplete; recovery:' with a 0600 file", () => {
    const { root, bases } = repo();
    const after = expectedAfterApply(root);
    let failed = false;
    const fsOps: FsOperations = {
      ...nodeFsOperations,
      unlink(target) {
        if (!failed && path.basename(target).startsWith(".wfevolve-")) {
          failed = true;
          throw Object.assign(new Error("EBUSY: resource busy"), { code: "EBUSY" });
        }
        nodeFsOperations.unlink(target);
      },
    };
    let error: OverlayTransactionError | undefined;
    try {
      applyPromotedOverlay({ skills: OVERLAY_SKILLS, repoRoot: root, files: OVERLAY, expectedTargetBases: bases, now: NOW, fsOps });
    } catch (caught) {
      error = caught as OverlayTransactionError;
    }
    expect(error?.code).toBe("PROMOTION_APPLY_CLEANUP_INCOMPLETE");
    expect(error?.transactionState).toBe("published");
    expect(error?.message).toMatch(/transaction is published\b.*cleanup was incomplete; recovery: \S*\.wfbench-overlay-recovery-20260725T120000123000Z\.json$/);
    expect(fs.statSync(error?.recoveryPath as string).mode & 0o777).toBe(0o600);
    const journal = JSON.parse(fs.readFileSync(error?.recoveryPath as string, "utf8")) as { transaction_state: string };
    expect(journal.transaction_state).toBe("published");
    expect(recoverOverlayTransaction(error?.recoveryPath as string).ok).toBe(true);
    expect(snapshotTree(root)).toEqual(after);
  });
});
