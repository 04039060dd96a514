import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REVIEW_CREATED_PATHS_FILE, REVIEW_PLACEHOLDER_DIRECTORIES, REVIEW_PLACEHOLDER_FILES, prepareReviewWorkspace, removeReviewPlaceholders } from "./prepare-review-workspace.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace like a prepared review cell's: a harness `.git` with config and info/, `.claude/skills`, a package.json. */
function cell(): { workspace: string; privateRoot: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), "wfbench-placeholders-"));
  roots.push(root);
  const workspace = join(root, "workspace");
  const privateRoot = join(root, "private");
  const outside = join(root, "outside");
  for (const dir of [join(workspace, ".git/info"), join(workspace, ".claude/skills/demo-review"), privateRoot, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(workspace, ".git/config"), "[core]\n");
  writeFileSync(join(workspace, "package.json"), '{"name":"mathlib"}\n');
  return { workspace, privateRoot, outside };
}

describe("prepareReviewWorkspace (reference §6.5)", () => {
  it("creates every absent placeholder, leaves existing entries byte-identical, and records what it created", async () => {
    const { workspace, privateRoot } = cell();
    const { created } = await prepareReviewWorkspace(workspace, privateRoot);
    for (const path of REVIEW_PLACEHOLDER_DIRECTORIES) expect(lstatSync(join(workspace, path)).isDirectory(), path).toBe(true);
    for (const path of REVIEW_PLACEHOLDER_FILES) expect(lstatSync(join(workspace, path)).isFile(), path).toBe(true);
    expect(readFileSync(join(workspace, ".mcp.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(workspace, ".git/commondir"), "utf8")).toBe(".\n");
    expect(readFileSync(join(workspace, ".env"), "utf8")).toBe("");
    // Never truncated: the task's own files and the harness's git config.
    expect(readFileSync(join(workspace, "package.json"), "utf8")).toBe('{"name":"mathlib"}\n');
    expect(readFileSync(join(workspace, ".git/config"), "utf8")).toBe("[core]\n");
    const paths = created.map((entry) => entry.path);
    expect(paths).not.toContain("package.json");
    expect(paths).not.toContain(".git/config");
    expect(paths).toContain("node_modules");
    expect(paths.indexOf("node_modules")).toBeLessThan(paths.indexOf("node_modules/.bin"));
    expect(JSON.parse(readFileSync(join(privateRoot, REVIEW_CREATED_PATHS_FILE), "utf8"))).toEqual(paths);
  });

  it("lists each created name outside .git in .git/info/exclude, so the session's git shows no placeholder", async () => {
    const { workspace, privateRoot } = cell();
    const { created } = await prepareReviewWorkspace(workspace, privateRoot);
    const excluded = readFileSync(join(workspace, ".git/info/exclude"), "utf8").trimEnd().split("\n");
    expect(excluded).toEqual(created.filter((entry) => !entry.path.startsWith(".git/")).map((entry) => `/${entry.path}`));
    expect(excluded).toContain("/.mcp.json");
    expect(excluded).not.toContain("/package.json");
  });

  it.each([".env", ".claude/commands", "node_modules"])("refuses a symlink at %s and writes nothing through it", async (path) => {
    const { workspace, privateRoot, outside } = cell();
    symlinkSync(outside, join(workspace, path));
    await expect(prepareReviewWorkspace(workspace, privateRoot)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_FAILED", message: expect.stringContaining(`review workspace placeholder ${path}`) });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a link on the way to a placeholder (a planted .claude link), creating nothing behind it", async () => {
    const { workspace, privateRoot, outside } = cell();
    rmSync(join(workspace, ".claude"), { recursive: true });
    symlinkSync(outside, join(workspace, ".claude"));
    await expect(prepareReviewWorkspace(workspace, privateRoot)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_FAILED", message: expect.stringContaining("review workspace placeholder .claude: is a symlink") });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("removes only unchanged placeholders outside .git after the session", async () => {
    const { workspace, privateRoot } = cell();
    const placeholders = await prepareReviewWorkspace(workspace, privateRoot);
    writeFileSync(join(workspace, ".npmrc"), "changed\n");
    writeFileSync(join(workspace, "scripts/kept.sh"), "echo\n");
    await removeReviewPlaceholders(workspace, placeholders);
    expect(existsSync(join(workspace, ".mcp.json"))).toBe(false);
    expect(existsSync(join(workspace, "node_modules"))).toBe(false);
    expect(existsSync(join(workspace, ".claude/commands"))).toBe(false);
    expect(readFileSync(join(workspace, ".npmrc"), "utf8")).toBe("changed\n");
    expect(existsSync(join(workspace, "scripts/kept.sh"))).toBe(true);
    expect(readFileSync(join(workspace, "package.json"), "utf8")).toBe('{"name":"mathlib"}\n');
    // `.git` is replaced by the harness's copy before measuring; its placeholders are left to that.
    expect(existsSync(join(workspace, ".git/commondir"))).toBe(true);
  });
});
