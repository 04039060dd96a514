import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { START_UP_NOISE, checkPhaseWorkspace, snapshotWorkspace, type WorkspaceSnapshot } from "./snapshot-workspace.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(files: Record<string, string> = { "src/math.js": "export {};\n", "README.md": "# x\n" }): string {
  const root = mkdtempSync(join(tmpdir(), "snapshot-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) put(root, path, text);
  return root;
}

function put(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

async function snap(root: string): Promise<WorkspaceSnapshot> {
  const taken = await snapshotWorkspace(root);
  if (!taken.ok) throw new Error(taken.error);
  return taken.value;
}

async function phase(root: string, change: (root: string) => void, artifact: string | null) {
  const before = await snap(root);
  change(root);
  return checkPhaseWorkspace(before, await snap(root), artifact);
}

describe("snapshotWorkspace", () => {
  it("describes files, directories, links and special files without following links or opening a FIFO", async () => {
    const root = workspace({ "a/b.txt": "hello" });
    chmodSync(join(root, "a/b.txt"), 0o640);
    symlinkSync("/etc/passwd", join(root, "link"));
    execFileSync("mkfifo", [join(root, "pipe")]);
    const snapshot = await snap(root);
    expect(snapshot.get("a")).toMatch(/^d:[0-7]+$/u);
    expect(snapshot.get("a/b.txt")).toBe(`f:640:5:${createHash("sha256").update("hello").digest("hex")}`);
    expect(snapshot.get("link")).toMatch(/^l:[0-7]+:\/etc\/passwd$/u);
    expect(snapshot.get("pipe")).toMatch(/^s:[0-7]+$/u);
  });

  it("refuses a workspace over its bounds as a value", async () => {
    const root = workspace({ a: "1", b: "2", c: "3" });
    expect(await snapshotWorkspace(root, { maxEntries: 2 })).toMatchObject({ ok: false, error: expect.stringContaining("entries") as unknown });
    expect(await snapshotWorkspace(root, { maxFileBytes: 2 })).toMatchObject({ ok: false, error: expect.stringContaining("bytes") as unknown });
  });
});

describe("checkPhaseWorkspace", () => {
  it("skips no name but the root .git: the original's noise names, .claude and a nested .git are all changes", async () => {
    const names = [".bashrc", ".profile", ".env", ".env.local", ".npmrc", "package.json", "package-lock.json", "yarn.lock", ".claude/settings.json", ".claude/CLAUDE.md", "node_modules/x/index.js", "scripts", ".vscode/s.json", "pkg/.claude/.cc-writes/w/file", "src/.git/x.js"];
    const verdict = await phase(
      workspace({ "src/math.js": "x", "pkg/.claude/keep.md": "k", ".claude/skills/work/SKILL.md": "w" }),
      (r) => {
        for (const name of names) put(r, name, "noise");
        put(r, ".git/HEAD", "ref: refs/heads/elsewhere\n");
        put(r, "docs/plans/p.md", "# plan");
      },
      "docs/plans/p.md",
    );
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    const named = verdict.error.replace(/^phase changed unauthorized workspace path\(s\): /u, "").replace(/ \(\+\d+ more\)$/u, "").split(", ");
    // A new tree is named by its root: node_modules, not node_modules/x/index.js.
    expect(named).toEqual([".bashrc", ".claude/CLAUDE.md", ".claude/settings.json", ".env", ".env.local", ".npmrc", ".profile", ".vscode"]);
    expect(verdict.error).toMatch(/ \(\+7 more\)$/u);
  });

  it("lets start-up noise appear only where it was absent, of its measured kind, and nothing inside it", async () => {
    const noise = new Map<string, "d" | "f">([[".cc-state", "d"], [".cc-log", "f"]]);
    const run = async (files: Record<string, string>, change: (r: string) => void) => {
      const root = workspace(files);
      const before = await snap(root);
      change(root);
      put(root, "docs/plans/p.md", "# plan");
      return checkPhaseWorkspace(before, await snap(root), "docs/plans/p.md", noise);
    };
    expect(await run({}, (r) => {
      mkdirSync(join(r, ".cc-state"));
      put(r, ".cc-log", "x");
    })).toEqual({ ok: true });
    expect(await run({}, (r) => put(r, ".cc-state/payload.js", "x"))).toEqual({ ok: false, error: "phase changed unauthorized workspace path(s): .cc-state/payload.js" });
    expect(await run({}, (r) => mkdirSync(join(r, ".cc-log")))).toEqual({ ok: false, error: "phase changed unauthorized workspace path(s): .cc-log" });
    expect(await run({ ".cc-log": "seeded" }, (r) => put(r, ".cc-log", "rewritten"))).toEqual({ ok: false, error: "phase changed unauthorized workspace path(s): .cc-log" });
    // The measured list of the pinned CLI is empty: it creates nothing in its working directory at start-up.
    expect([...START_UP_NOISE]).toEqual([]);
  });

  it.each([
    ["a root scripts symlink", (r: string) => symlinkSync("/bin", join(r, "scripts"))],
    ["a write under scripts/", (r: string) => put(r, "scripts/run.sh", "x")],
    ["a source edit", (r: string) => put(r, "src/math.js", "changed")],
    ["a nested .claude/settings.local.json", (r: string) => put(r, "gitnexus/.claude/settings.local.json", "{}")],
    ["a nested package.json", (r: string) => put(r, "pkg/package.json", "{}")],
    ["a new nested .claude/agents entry", (r: string) => put(r, "pkg/.claude/agents/evil.md", "x")],
  ])("refuses %s beside the plan", async (_name, change) => {
    const verdict = await phase(
      workspace({ "src/math.js": "x", "pkg/package.json": "{\"a\":1}" }),
      (r) => {
        change(r);
        put(r, "docs/plans/p.md", "# plan");
      },
      "docs/plans/p.md",
    );
    expect(verdict).toMatchObject({ ok: false, error: expect.stringMatching(/^phase changed unauthorized workspace path\(s\): /u) as unknown });
  });

  it("accepts a new regular artifact with its new parent directories, and names what else changed", async () => {
    expect(await phase(workspace(), (r) => put(r, "docs/plans/p.md", "# plan"), "docs/plans/p.md")).toEqual({ ok: true });
    const extra = await phase(workspace(), (r) => {
      put(r, "docs/plans/p.md", "# plan");
      put(r, "docs/notes.md", "x");
    }, "docs/plans/p.md");
    expect(extra).toEqual({ ok: false, error: "phase changed unauthorized workspace path(s): docs/notes.md" });
  });

  it("rejects an unchanged pre-seeded artifact and a symlinked artifact", async () => {
    const seeded = workspace({ "docs/plans/p.md": "# old" });
    expect(await phase(seeded, () => undefined, "docs/plans/p.md")).toEqual({ ok: false, error: "phase did not create or change its required artifact" });
    const linked = await phase(workspace({ "README.md": "r" }), (r) => {
      mkdirSync(join(r, "docs/plans"), { recursive: true });
      symlinkSync("../../README.md", join(r, "docs/plans/p.md"));
    }, "docs/plans/p.md");
    expect(linked).toEqual({ ok: false, error: "phase artifact docs/plans/p.md is not a regular file" });
  });

  it("demands an untouched workspace without an artifact, and shows at most 8 paths", async () => {
    expect(await phase(workspace(), () => undefined, null)).toEqual({ ok: true });
    const many = await phase(workspace(), (r) => {
      for (let i = 0; i < 10; i += 1) put(r, `f${i}.txt`, "x");
    }, null);
    expect(many.ok).toBe(false);
    if (many.ok) return;
    expect(many.error).toMatch(/^phase changed the read-only workspace: /u);
    expect(many.error.split(", ")).toHaveLength(8);
  });
});
