import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { computeSkillFingerprint } from "./compute-skill-fingerprint.js";
import type { SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { diffPlanDocuments, digestWorkspaceDiff, listPlanDocuments, measureWorkspace, parseShortstat, type WorkspaceSandbox } from "./inspect-workspace.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cell-pipeline-"));
  dirs.push(dir);
  return dir;
}

describe("parseShortstat", () => {
  it.each([
    [" 3 files changed, 10 insertions(+), 2 deletions(-)\n", { files: 3, insertions: 10, deletions: 2 }],
    [" 1 file changed, 1 insertion(+)\n", { files: 1, insertions: 1, deletions: 0 }],
    [" 1 file changed, 4 deletions(-)\n", { files: 1, insertions: 0, deletions: 4 }],
    ["", { files: 0, insertions: 0, deletions: 0 }],
  ])("parses %j", (text, churn) => {
    expect(parseShortstat(text)).toEqual(churn);
  });
});

describe("listPlanDocuments / diffPlanDocuments", () => {
  it("finds new and changed .md/.html plans, ignores other files and flags links", async () => {
    const ws = tempDir();
    mkdirSync(join(ws, "docs/plans"), { recursive: true });
    writeFileSync(join(ws, "docs/plans/old.md"), "old");
    const before = await listPlanDocuments(ws);
    writeFileSync(join(ws, "docs/plans/new.md"), "new");
    writeFileSync(join(ws, "docs/plans/notes.txt"), "ignored");
    const after = await listPlanDocuments(ws);
    expect(diffPlanDocuments(before.docs, after.docs)).toEqual(["docs/plans/new.md"]);
    writeFileSync(join(ws, "docs/plans/old.md"), "changed");
    symlinkSync("/etc/passwd", join(ws, "docs/plans/link.md"));
    const last = await listPlanDocuments(ws);
    expect(diffPlanDocuments(after.docs, last.docs)).toEqual(["docs/plans/old.md"]);
    expect(last.unsafe).toEqual(["docs/plans/link.md"]);
  });

  it("never follows a planted docs or docs/plans link onto the host: the linked component is reported", async () => {
    const host = tempDir();
    mkdirSync(join(host, "plans"), { recursive: true });
    writeFileSync(join(host, "plans/host-only.md"), "host bytes");
    const viaDocs = tempDir();
    symlinkSync(host, join(viaDocs, "docs"));
    expect(await listPlanDocuments(viaDocs)).toEqual({ docs: new Map(), unsafe: ["docs"] });
    const viaPlans = tempDir();
    mkdirSync(join(viaPlans, "docs"));
    symlinkSync(join(host, "plans"), join(viaPlans, "docs/plans"));
    expect(await listPlanDocuments(viaPlans)).toEqual({ docs: new Map(), unsafe: ["docs/plans"] });
    const fileDocs = tempDir();
    writeFileSync(join(fileDocs, "docs"), "not a directory");
    expect(await listPlanDocuments(fileDocs)).toEqual({ docs: new Map(), unsafe: ["docs"] });
  });

  it("flags a FIFO named like a plan without opening it for long", async () => {
    const ws = tempDir();
    mkdirSync(join(ws, "docs/plans"), { recursive: true });
    execFileSync("mkfifo", [join(ws, "docs/plans/pipe.md")]);
    writeFileSync(join(ws, "docs/plans/real.md"), "# plan");
    const listed = await listPlanDocuments(ws);
    expect([...listed.docs.keys()]).toEqual(["docs/plans/real.md"]);
    expect(listed.unsafe).toEqual(["docs/plans/pipe.md"]);
  });

  it("returns nothing when there is no plan directory", async () => {
    expect((await listPlanDocuments(tempDir())).docs.size).toBe(0);
  });
});

describe("computeSkillFingerprint", () => {
  function skillTree(): string {
    const ws = tempDir();
    mkdirSync(join(ws, ".claude/skills/work/refs"), { recursive: true });
    mkdirSync(join(ws, ".claude/skills/plan"), { recursive: true });
    writeFileSync(join(ws, ".claude/skills/work/SKILL.md"), "work");
    writeFileSync(join(ws, ".claude/skills/work/refs/a.md"), "a");
    writeFileSync(join(ws, ".claude/skills/plan/SKILL.md"), "plan");
    return ws;
  }

  it("is null without skills, stable, and changes with any byte or path", async () => {
    const ws = skillTree();
    expect(await computeSkillFingerprint(ws, [])).toBeNull();
    const first = await computeSkillFingerprint(ws, ["work"]);
    expect(first).toMatch(/^[0-9a-f]{64}$/u);
    expect(await computeSkillFingerprint(ws, ["work"])).toBe(first);
    expect(await computeSkillFingerprint(ws, ["plan", "work"])).not.toBe(first);
    writeFileSync(join(ws, ".claude/skills/work/refs/a.md"), "b");
    expect(await computeSkillFingerprint(ws, ["work"])).not.toBe(first);
  });

  it("throws CELL_PIPELINE_SKILL_INVALID for a missing skill or a symlink inside one", async () => {
    const ws = skillTree();
    await expect(computeSkillFingerprint(ws, ["missing"])).rejects.toMatchObject({ code: "CELL_PIPELINE_SKILL_INVALID" });
    symlinkSync("/etc/passwd", join(ws, ".claude/skills/work/leak.md"));
    await expect(computeSkillFingerprint(ws, ["work"])).rejects.toMatchObject({ code: "CELL_PIPELINE_SKILL_INVALID" });
  });

  it("follows no link in any component: a `.claude` swapped for a link to a host tree is refused, not read", async () => {
    const host = tempDir();
    mkdirSync(join(host, ".claude/skills/work"), { recursive: true });
    writeFileSync(join(host, ".claude/skills/work/SKILL.md"), "work");
    const ws = tempDir();
    symlinkSync(join(host, ".claude"), join(ws, ".claude"));
    await expect(computeSkillFingerprint(ws, ["work"])).rejects.toMatchObject({ code: "CELL_PIPELINE_SKILL_INVALID" });
    const nested = tempDir();
    mkdirSync(join(nested, ".claude"));
    symlinkSync(join(host, ".claude/skills"), join(nested, ".claude/skills"));
    await expect(computeSkillFingerprint(nested, ["work"])).rejects.toMatchObject({ code: "CELL_PIPELINE_SKILL_INVALID" });
  });

  it("refuses more than 4 MiB of skill bytes", async () => {
    const ws = tempDir();
    mkdirSync(join(ws, ".claude/skills/work"), { recursive: true });
    writeFileSync(join(ws, ".claude/skills/work/big.md"), Buffer.alloc(4 * 1024 * 1024 + 1));
    await expect(computeSkillFingerprint(ws, ["work"])).rejects.toMatchObject({ code: "CELL_PIPELINE_SKILL_INVALID", message: "evaluated skills exceed 4 MiB" });
  });
});

describe("measureWorkspace / digestWorkspaceDiff", () => {
  describe("when the workspace holds a directory the sandbox user cannot list", () => {
    const exited = (stdout: string, exitCode = 0): SandboxRunResult => ({ backend: "bwrap", state: "exited", ok: exitCode === 0, exitCode, signal: null, stdout: Buffer.from(stdout), stdoutOverflow: false, stderrTail: "", durationMs: 1, setupError: null });
    function fakeSandbox(findOutput: string): { sandbox: WorkspaceSandbox; calls: string[][] } {
      const calls: string[][] = [];
      const sandbox: WorkspaceSandbox = (_policy, argv) => {
        calls.push([...argv]);
        // Only the find is answered; the git listing that would follow fails, which the test does not reach.
        return Promise.resolve(argv[0] === "/usr/bin/find" ? exited(findOutput) : exited("", 128));
      };
      return { sandbox, calls };
    }

    it("refuses it before any git runs, naming each directory and its mode (CELL_PIPELINE_WORKSPACE_REFUSED)", async () => {
      const ws = tempDir();
      const priv = tempDir();
      const { sandbox, calls } = fakeSandbox("100 src/impl\0" + "600 \0");
      const refusal = await measureWorkspace(ws, "a".repeat(40), priv, undefined, sandbox).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_REFUSED", message: 'the sandboxed git cannot list directory "src/impl" (mode 0100), "." (mode 0600): what it holds would be left out of the patch, churn and diff digest' });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toEqual(["/usr/bin/find", "/workspace", "-path", "/workspace/.git", "-prune", "-o", "-type", "d", "(", "!", "-readable", "-o", "!", "-executable", ")", "-prune", "-printf", "%m %P\\0"]);
      await expect(digestWorkspaceDiff(ws, "a".repeat(40), priv, undefined, sandbox)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_REFUSED" });
    });

    it("goes on to git when find names nothing", async () => {
      const { sandbox, calls } = fakeSandbox("");
      await expect(measureWorkspace(tempDir(), "a".repeat(40), tempDir(), undefined, sandbox)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_REFUSED", message: expect.stringContaining("git read-tree / ls-files") });
      expect(calls.map((argv) => argv[0])).toEqual(["/usr/bin/find", "/bin/sh"]);
    });
  });
});
