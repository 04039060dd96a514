import { execFileSync } from "node:child_process";
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isPluginSnapshotError, removePluginSnapshot, snapshotPlugin, type SnapshotPluginResult } from "./index.js";

const here = dirname(fileURLToPath(import.meta.url));
const SMALL = join(here, "..", "test", "fixtures", "small-release");
const DEMO = join(here, "..", "fixtures", "compound-engineering");
const VERSION = "3.23.1";

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "plugin-snapshot-"));
});
afterEach(async () => {
  for (const name of await readdir(work)) if (name.startsWith("snap")) await removePluginSnapshot(join(work, name));
  await rm(work, { recursive: true, force: true });
});

async function copyOf(fixture: string, name = "plugin"): Promise<string> {
  const dir = join(work, name);
  await cp(fixture, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

function refusedRule(result: SnapshotPluginResult): string {
  if (result.ok) throw new Error("expected a refusal");
  return result.error.rule;
}

async function treeModes(root: string, rel = ""): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    out[path] = (await lstat(join(root, path))).mode & 0o7777;
    if (entry.isDirectory()) Object.assign(out, await treeModes(root, path));
  }
  return out;
}

describe("snapshotPlugin on the shipped fixtures", () => {
  it("copies only the manifest and the allowed trees, skips dev folders, and freezes every entry", async () => {
    const plugin = await copyOf(SMALL);
    // git never carries a node_modules folder, so the fixture gets its one here.
    await mkdir(join(plugin, "scripts/node_modules/x"), { recursive: true });
    await writeFile(join(plugin, "scripts/node_modules/x/package.json"), "{}\n");
    const destDir = join(work, "snap");
    const result = await snapshotPlugin({ pluginDir: plugin, expectedVersion: VERSION, destDir });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.files.map((f) => f.path)).toEqual([
      ".claude-plugin/marketplace.json",
      ".claude-plugin/plugin.json",
      "assets/banner.txt",
      "scripts/changed-files.sh",
      "scripts/count-lines.py",
      "skills/ce-code-review/SKILL.md",
      "skills/ce-plan/SKILL.md",
      "skills/ce-plan/references/plan-template.md",
      "skills/ce-work/SKILL.md",
    ]);
    expect(result.value.skipped).toEqual(["scripts/node_modules", "skills/ce-plan/__pycache__", "skills/ce-work/tests"]);
    expect(await treeModes(destDir)).toEqual({
      ".claude-plugin": 0o555,
      ".claude-plugin/marketplace.json": 0o444,
      ".claude-plugin/plugin.json": 0o444,
      assets: 0o555,
      "assets/banner.txt": 0o444,
      scripts: 0o555,
      "scripts/changed-files.sh": 0o555,
      "scripts/count-lines.py": 0o555,
      skills: 0o555,
      "skills/ce-code-review": 0o555,
      "skills/ce-code-review/SKILL.md": 0o444,
      "skills/ce-plan": 0o555,
      "skills/ce-plan/SKILL.md": 0o444,
      "skills/ce-plan/references": 0o555,
      "skills/ce-plan/references/plan-template.md": 0o444,
      "skills/ce-work": 0o555,
      "skills/ce-work/SKILL.md": 0o444,
    });
    expect((await stat(destDir)).mode & 0o777).toBe(0o555);
    expect(await readFile(join(destDir, "skills/ce-plan/SKILL.md"))).toEqual(await readFile(join(plugin, "skills/ce-plan/SKILL.md")));
    expect(result.value).toMatchObject({ name: "compound-engineering", version: VERSION, path: destDir });
    expect(result.value.manifestDigest).toMatch(/^[0-9a-f]{64}$/u);
    expect(result.value.provenance).toEqual({
      name: "compound-engineering",
      version: VERSION,
      manifest_schema_version: 1,
      manifest_digest: result.value.manifestDigest,
      file_count: 9,
      total_bytes: result.value.totalBytes,
    });
  });

  it("gives the same digest wherever the plugin lives and a different one when a copied byte changes", async () => {
    const a = await snapshotPlugin({ pluginDir: DEMO, expectedVersion: VERSION, destDir: join(work, "snap-a") });
    const moved = await copyOf(DEMO, "elsewhere");
    const b = await snapshotPlugin({ pluginDir: moved, expectedVersion: VERSION, destDir: join(work, "snap-b") });
    // Outside the copied trees: no effect on the digest.
    await writeFile(join(moved, "CLAUDE.md"), "changed\n");
    const c = await snapshotPlugin({ pluginDir: moved, expectedVersion: VERSION, destDir: join(work, "snap-c") });
    await writeFile(join(moved, "skills/ce-work/SKILL.md"), "changed\n");
    const d = await snapshotPlugin({ pluginDir: moved, expectedVersion: VERSION, destDir: join(work, "snap-d") });
    await chmod(join(moved, "assets/banner.txt"), 0o755);
    const e = await snapshotPlugin({ pluginDir: moved, expectedVersion: VERSION, destDir: join(work, "snap-e") });
    const digests = [a, b, c, d, e].map((r) => (r.ok ? r.value.manifestDigest : r.error.message));
    expect(digests[0]).toBe(digests[1]);
    expect(digests[1]).toBe(digests[2]);
    expect(new Set(digests).size).toBe(3);
  });

  it("never writes over an existing directory", async () => {
    const destDir = join(work, "snap");
    await mkdir(destDir);
    await expect(snapshotPlugin({ pluginDir: DEMO, expectedVersion: VERSION, destDir })).rejects.toMatchObject({ code: "PLUGIN_SNAPSHOT_DEST_EXISTS" });
  });

  it("throws on a malformed request, naming the field", async () => {
    const destDir = join(work, "snap");
    for (const version of ["v3.23.1", "3.23", "^3.23.1", "latest", "03.1.0"]) {
      const error: unknown = await snapshotPlugin({ pluginDir: DEMO, expectedVersion: version, destDir }).catch((e: unknown) => e);
      expect(isPluginSnapshotError(error) && error.code === "PLUGIN_SNAPSHOT_BAD_REQUEST" && error.message.includes("expectedVersion")).toBe(true);
    }
    await expect(snapshotPlugin({ pluginDir: "relative/dir", expectedVersion: VERSION, destDir })).rejects.toThrow(/pluginDir/u);
  });
});

/** A tree shaped like a published 3.23.x release: ~400 files, ~5 MB copied, largest ~360 KB, plus folders never copied. */
async function writeRealisticRelease(root: string): Promise<{ copiedFiles: number; copiedBytes: number }> {
  let copiedFiles = 0;
  let copiedBytes = 0;
  const put = async (rel: string, size: number, executable = false, copied = true): Promise<void> => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    const line = `${rel} - deterministic filler text for the release fixture.\n`;
    await writeFile(join(root, rel), line.repeat(Math.ceil(size / line.length)).slice(0, size), { mode: executable ? 0o755 : 0o644 });
    if (copied) {
      copiedFiles += 1;
      copiedBytes += Buffer.byteLength(line.repeat(Math.ceil(size / line.length)).slice(0, size));
    }
  };
  await put(".claude-plugin/plugin.json", 0, false, false);
  await writeFile(join(root, ".claude-plugin/plugin.json"), JSON.stringify({ name: "compound-engineering", version: "3.23.4", author: { name: "fixture" } }));
  await writeFile(join(root, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "every", plugins: [{ name: "compound-engineering" }] }));
  await writeFile(join(root, "plugin.json"), JSON.stringify({ name: "compound-engineering", version: "3.23.4" }));
  copiedFiles += 2;
  for (let s = 0; s < 40; s += 1) {
    const skill = s === 0 ? "ce-plan" : s === 1 ? "ce-work" : s === 2 ? "ce-code-review" : `skill-${String(s).padStart(2, "0")}`;
    await put(`skills/${skill}/SKILL.md`, 6_000);
    for (let r = 0; r < 6; r += 1) await put(`skills/${skill}/references/topic-${r}/notes-${r}.md`, 9_000);
    await put(`skills/${skill}/scripts/run.sh`, 1_500, true);
  }
  for (let i = 0; i < 60; i += 1) await put(`scripts/tool-${i}.${i % 2 === 0 ? "py" : "sh"}`, 4_000, true);
  await put("assets/diagram.svg", 360 * 1024);
  for (let i = 0; i < 12; i += 1) await put(`assets/img-${i}.txt`, 200_000);
  // Outside the copied trees: other agents' folders, docs, and symlinks a release really carries.
  await put("CLAUDE.md", 2_000, false, false);
  await put("AGENTS.md", 2_000, false, false);
  await put(".cursor-plugin/plugin.json", 200, false, false);
  await put("plugins/other/README.md", 500, false, false);
  await mkdir(join(root, ".claude"), { recursive: true });
  await symlink("../skills", join(root, ".claude/skills"));
  await symlink("CLAUDE.md", join(root, "GEMINI.md"));
  await symlink("/etc/passwd", join(root, "outside-link"));
  return { copiedFiles, copiedBytes };
}

describe("snapshotPlugin on a realistic release", () => {
  it("accepts ~400 files and ~5 MB with executable scripts, nested references and links outside the copied trees", async () => {
    const plugin = join(work, "release");
    const { copiedFiles, copiedBytes } = await writeRealisticRelease(plugin);
    expect(copiedFiles).toBeGreaterThanOrEqual(390);
    expect(copiedBytes).toBeGreaterThan(4.5 * 1024 * 1024);
    const destDir = join(work, "snap");
    const result = await snapshotPlugin({ pluginDir: plugin, expectedVersion: "3.23.4", destDir });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.files).toHaveLength(copiedFiles);
    expect(result.value.totalBytes).toBeGreaterThan(copiedBytes);
    expect(Math.max(...result.value.files.map((f) => f.size))).toBe(360 * 1024);
    expect(result.value.files.filter((f) => f.executable)).toHaveLength(100);
    const top = (await readdir(destDir)).sort();
    expect(top).toEqual([".claude-plugin", "assets", "scripts", "skills"]);
    expect((await readdir(join(destDir, ".claude-plugin"))).sort()).toEqual(["marketplace.json", "plugin.json"]);
  });
});

describe("snapshotPlugin refuses hostile plugins, naming the rule", () => {
  const cases: [string, (dir: string) => Promise<void>, string, string | null][] = [
    ["a symlink inside skills/", (dir) => symlink("../../CLAUDE.md", join(dir, "skills/ce-work/extra.md")), "symlink", "skills/ce-work/extra.md"],
    ["a symlinked skills/ folder", async (dir) => {
      await cp(join(dir, "skills"), join(dir, "real-skills"), { recursive: true });
      await rm(join(dir, "skills"), { recursive: true });
      await symlink("real-skills", join(dir, "skills"));
    }, "symlink", "skills"],
    ["a symlinked manifest", async (dir) => {
      await cp(join(dir, ".claude-plugin/plugin.json"), join(dir, "manifest.json"));
      await rm(join(dir, ".claude-plugin/plugin.json"));
      await symlink("../manifest.json", join(dir, ".claude-plugin/plugin.json"));
    }, "symlink", ".claude-plugin/plugin.json"],
    ["a .env file", (dir) => writeFile(join(dir, "skills/ce-work/.env"), "KEY=1\n"), "secret-like", "skills/ce-work/.env"],
    ["a token file in scripts/", (dir) => writeFile(join(dir, "scripts/github_token.txt"), "x\n"), "secret-like", "scripts/github_token.txt"],
    ["a private key", (dir) => writeFile(join(dir, "assets/deploy.pem"), "x\n"), "secret-like", "assets/deploy.pem"],
    ["an oversize file", (dir) => writeFile(join(dir, "assets/huge.bin"), Buffer.alloc(2 * 1024 * 1024 + 1)), "file-too-large", "assets/huge.bin"],
    ["a FIFO", async (dir) => {
      execFileSync("mkfifo", [join(dir, "skills/ce-plan/pipe")]);
    }, "special-file", "skills/ce-plan/pipe"],
    ["the wrong version", (dir) => writeFile(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "compound-engineering", version: "3.23.0" })), "wrong-version", ".claude-plugin/plugin.json"],
    ["another plugin's name", (dir) => writeFile(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "compound-engineering-fork", version: VERSION })), "wrong-name", ".claude-plugin/plugin.json"],
    ["a manifest that is not JSON", (dir) => writeFile(join(dir, ".claude-plugin/plugin.json"), "{name:"), "manifest-invalid", ".claude-plugin/plugin.json"],
    ["a manifest without a version", (dir) => writeFile(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "compound-engineering" })), "manifest-invalid", ".claude-plugin/plugin.json"],
    ["no manifest (only the root plugin.json)", (dir) => rm(join(dir, ".claude-plugin/plugin.json")), "manifest-missing", ".claude-plugin/plugin.json"],
    ["no skills/ folder", (dir) => rm(join(dir, "skills"), { recursive: true }), "skills-missing", "skills"],
    ["a missing ce-code-review skill", (dir) => rm(join(dir, "skills/ce-code-review"), { recursive: true }), "required-skill-missing", "skills/ce-code-review/SKILL.md"],
    ["a path over 1,024 bytes", async (dir) => {
      let rel = "skills/ce-plan";
      while (rel.length < 1030) rel += `/${"d".repeat(200)}`;
      await mkdir(join(dir, rel), { recursive: true });
      await writeFile(join(dir, rel, "x.md"), "x");
    }, "path-too-long", null],
  ];
  for (const [label, plant, rule, path] of cases) {
    it(`refuses ${label} (${rule}) and writes nothing`, async () => {
      const plugin = await copyOf(DEMO);
      await plant(plugin);
      const destDir = join(work, "snap");
      const result = await snapshotPlugin({ pluginDir: plugin, expectedVersion: VERSION, destDir });
      expect(refusedRule(result)).toBe(rule);
      if (!result.ok) {
        if (path !== null) expect(result.error.path).toBe(path);
        expect(result.error.message).toContain(`(${rule})`);
      }
      await expect(lstat(destDir)).rejects.toMatchObject({ code: "ENOENT" });
    });
  }

  it("refuses past the file-count and total-size limits", async () => {
    const plugin = await copyOf(DEMO);
    const limits = { maxFiles: 5, maxFileBytes: 1024, maxTotalBytes: 1 << 20, maxPathBytes: 1024 };
    expect(refusedRule(await snapshotPlugin({ pluginDir: plugin, expectedVersion: VERSION, destDir: join(work, "snap"), limits }))).toBe("too-many-files");
    const tight = { ...limits, maxFiles: 100, maxTotalBytes: 600 };
    expect(refusedRule(await snapshotPlugin({ pluginDir: plugin, expectedVersion: VERSION, destDir: join(work, "snap"), limits: tight }))).toBe("total-too-large");
  });

  it("refuses a plugin directory that is a symlink or absent", async () => {
    const link = join(work, "link");
    await symlink(DEMO, link);
    expect(refusedRule(await snapshotPlugin({ pluginDir: link, expectedVersion: VERSION, destDir: join(work, "snap") }))).toBe("plugin-dir");
    expect(refusedRule(await snapshotPlugin({ pluginDir: join(work, "absent"), expectedVersion: VERSION, destDir: join(work, "snap") }))).toBe("plugin-dir");
  });
});
