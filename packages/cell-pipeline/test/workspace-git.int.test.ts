// The git every measurement after a session runs: a harness-built .git (from the base objects only), the workspace
// read-only, attributes and drivers off, files over the per-file bound and nested repositories counted, never read.
// Real git in bwrap on a workspace the test leaves as hostile as an agent could.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHarnessGitDir, type HarnessGitDir } from "@wfbench/clone-sanitizer";
import { MAX_DIFF_FILE_BYTES, digestWorkspaceDiff, measureWorkspace } from "../src/inspect-workspace.js";
import { resetWorkspaceGit } from "../src/session-dirs.js";

const required = process.env["CI"] === "true";
const runnable = existsSync("/usr/bin/bwrap");

const base = mkdtempSync(join(tmpdir(), "cell-workspace-git-"));
const ws = join(base, "ws");
const privateRoot = join(base, "private");
const bait = join(base, "bait");
let harness: HarnessGitDir;
let baseSha = "";
let digestBefore = "";

function git(...args: string[]): string {
  return execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: base, GIT_CONFIG_NOSYSTEM: "1" } });
}

const big = (fill: string): string => fill.repeat(MAX_DIFF_FILE_BYTES + 1024);

beforeAll(async () => {
  if (!runnable && !required) return;
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(privateRoot, { mode: 0o700 });
  mkdirSync(bait);
  writeFileSync(join(bait, "config"), "bait\n");
  writeFileSync(join(ws, "src/a.txt"), "one\ntwo\n");
  writeFileSync(join(ws, "big-same.bin"), big("a"));
  writeFileSync(join(ws, "big-mod.bin"), big("b"));
  writeFileSync(join(ws, "grows.txt"), "small\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "base");
  baseSha = git("rev-parse", "HEAD").trim();
  harness = await buildHarnessGitDir({ checkout: ws, dest: join(privateRoot, "harness-git"), headSha: baseSha, objectFormat: "sha1" });
  await resetWorkspaceGit(ws, harness, privateRoot);
  digestBefore = await digestWorkspaceDiff(ws, baseSha, privateRoot);

  // What a session leaves: its repository config with filter drivers, attributes everywhere, edits, a file past the
  // bound (changed in place at the same size, grown, and a 2 GiB sparse one), a nested repository, and finally .git
  // itself replaced by a link to a host directory.
  writeFileSync(join(ws, ".git/config"), "[filter \"evil\"]\n\tclean = echo EVIL\n\trequired = true\n", { flag: "a" });
  writeFileSync(join(ws, ".git/info/attributes"), "* filter=evil\n");
  writeFileSync(join(ws, ".gitattributes"), "* binary\nsrc/a.txt filter=evil\n");
  writeFileSync(join(ws, "src/a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(ws, "big-mod.bin"), `${big("b").slice(0, -1)}c`);
  writeFileSync(join(ws, "grows.txt"), big("g"));
  writeFileSync(join(ws, "huge.bin"), "");
  truncateSync(join(ws, "huge.bin"), 2 * 1024 ** 3);
  mkdirSync(join(ws, "vendor/impl"), { recursive: true });
  execFileSync("git", ["init", "-q", join(ws, "vendor/impl")], { env: { PATH: "/usr/bin:/bin", HOME: base } });
  writeFileSync(join(ws, "vendor/impl/hidden.js"), "export const hidden = 1;\n");
  rmSync(join(ws, ".git"), { recursive: true, force: true });
  symlinkSync(bait, join(ws, ".git"));
  await resetWorkspaceGit(ws, harness, privateRoot);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(!runnable && !required)("the harness's own git after a session", () => {
  it("puts a harness-built .git back in place: the planted link moved aside unfollowed, no agent config, hooks or attributes", () => {
    expect(lstatSync(join(ws, ".git")).isDirectory()).toBe(true);
    expect(readFileSync(join(ws, ".git/config"), "utf8")).not.toContain("evil");
    expect(readFileSync(join(ws, ".git/info/attributes"), "utf8")).toBe("* !text !eol !crlf !ident !filter !diff !merge !working-tree-encoding\n");
    expect(readFileSync(join(ws, ".git/HEAD"), "utf8")).toBe(`${baseSha}\n`);
    expect(existsSync(join(ws, ".git/hooks"))).toBe(false);
    expect(readdirSync(bait)).toEqual(["config"]);
    expect(readFileSync(join(bait, "config"), "utf8")).toBe("bait\n");
  });

  it("measures every edit as text, runs no driver, and counts what git may not read without reading it", async () => {
    const measured = await measureWorkspace(ws, baseSha, privateRoot);
    const patch = measured.patch.toString("utf8");
    expect(patch).not.toContain("EVIL");
    expect(patch).not.toContain("Binary files");
    expect(patch).toContain("+three\n");
    expect(patch).not.toContain("hidden");
    expect(measured.undiffed).toEqual([
      { path: "big-mod.bin", reason: "over-size", status: "modified", size: MAX_DIFF_FILE_BYTES + 1024 },
      { path: "grows.txt", reason: "over-size", status: "modified", size: MAX_DIFF_FILE_BYTES + 1024 },
      { path: "huge.bin", reason: "over-size", status: "added", size: 2 * 1024 ** 3 },
      { path: "vendor/impl", reason: "nested-repository", status: "added", size: null },
    ]);
    expect(patch.split("\n").slice(0, 4)).toEqual([
      `# wfbench: "big-mod.bin" modified, not diffed (${MAX_DIFF_FILE_BYTES + 1024} bytes, over the ${MAX_DIFF_FILE_BYTES}-byte per-file diff bound)`,
      `# wfbench: "grows.txt" modified, not diffed (${MAX_DIFF_FILE_BYTES + 1024} bytes, over the ${MAX_DIFF_FILE_BYTES}-byte per-file diff bound)`,
      `# wfbench: "huge.bin" added, not diffed (${2 * 1024 ** 3} bytes, over the ${MAX_DIFF_FILE_BYTES}-byte per-file diff bound)`,
      '# wfbench: "vendor/impl" added, not diffed (a nested git repository)',
    ]);
    // .gitattributes (2 lines) and src/a.txt (1 line) diffed; four more files counted without their lines.
    expect(measured.churn).toEqual({ files: 6, insertions: 3, deletions: 0 });
    expect(measured.patchTruncated).toBe(false);
    // The digest read through the measurement's own view is the one a fresh view of the same workspace gives.
    expect(measured.diffDigest).toBe(await digestWorkspaceDiff(ws, baseSha, privateRoot));
    expect(measured.diffDigest).not.toBe(digestBefore);
  }, 60_000);

  it("digests the same way every time, and differently from before the edits", async () => {
    const after = await digestWorkspaceDiff(ws, baseSha, privateRoot);
    expect(after).toMatch(/^[0-9a-f]{64}$/u);
    expect(await digestWorkspaceDiff(ws, baseSha, privateRoot)).toBe(after);
    expect(after).not.toBe(digestBefore);
  }, 60_000);

  it("never writes the workspace's .git: its index and object store are as installed", () => {
    expect(readdirSync(join(ws, ".git")).sort()).toEqual(["HEAD", "config", "index", "info", "objects", "refs"]);
    expect(readFileSync(join(ws, ".git/index"))).toEqual(readFileSync(join(harness.gitDir, "index")));
  });

  it("refuses a directory it may enter but not list, instead of leaving the code inside out of patch and digest", async () => {
    // git skips such a directory with a warning and exits 0, while an import of a name inside it still works.
    mkdirSync(join(ws, "src/impl"));
    writeFileSync(join(ws, "src/impl/double.js"), "export const double = (x) => 2 * x;\n");
    chmodSync(join(ws, "src/impl"), 0o100);
    try {
      await expect(measureWorkspace(ws, baseSha, privateRoot)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_REFUSED", message: expect.stringContaining('"src/impl" (mode 0100)') });
      await expect(digestWorkspaceDiff(ws, baseSha, privateRoot)).rejects.toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_REFUSED" });
    } finally {
      chmodSync(join(ws, "src/impl"), 0o755);
      rmSync(join(ws, "src/impl"), { recursive: true });
    }
  }, 60_000);
});
