import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { materializeTaskAssets } from "../src/materialize-task-assets.js";
import { removeTree } from "@wfbench/durable-fs";
import type { TaskAssetDeclarationsInput } from "../src/schema.js";
import { DEFAULT_ASSET_LIMITS, snapshotTaskAssets } from "../src/snapshot-task-assets.js";
import { createTaskAssetCache } from "../src/task-asset-cache.js";
import { makeScratch, writeFiles } from "./helpers/git-fixture.js";

const SHA = "a".repeat(40);

describe("task asset snapshots", () => {
  let scratch: string;
  let source: string;
  let harness: string;
  let cacheRoot: string;

  beforeEach(() => {
    scratch = makeScratch();
    source = join(scratch, "repo");
    harness = join(scratch, "harness");
    cacheRoot = join(scratch, ".task-assets");
    mkdirSync(cacheRoot);
    writeFiles(source, {
      "fixtures/data.json": "{\"a\":1}\n",
      "fixtures/nested/more.txt": "more\n",
      "node_modules/tool/cli.js": "console.log('tool');\n",
      "node_modules/tool/package.json": "{}\n",
      "shared/dist/index.js": "export {};\n",
    });
    mkdirSync(join(source, "node_modules/.bin"));
    symlinkSync("../tool/cli.js", join(source, "node_modules/.bin/tool"));
    writeFileSync(join(source, "node_modules/tool/run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    writeFiles(harness, { "eval/workflow_bench/review_cases/pr-1.patch": "diff --git a/x b/x\n" });
  });
  afterEach(async () => {
    await removeTree(scratch);
  });

  const declarations: TaskAssetDeclarationsInput = {
    sandbox_copy: ["fixtures", "eval/workflow_bench/review_cases/pr-1.patch"],
    sandbox_dependencies: [
      { source: "node_modules", target: "node_modules" },
      { source: "shared/dist", target: "shared/dist" },
    ],
  };

  const snap = (decl: TaskAssetDeclarationsInput = declarations, limits = DEFAULT_ASSET_LIMITS) =>
    snapshotTaskAssets({ cacheRoot, repoIdentity: source, resolvedSha: SHA, sourceRoot: source, harnessRoot: harness, declarations: decl, limits });

  it("captures, freezes and digests copies and dependencies, with an empty .vite-temp in node_modules", async () => {
    const result = await snap();
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const s = result.value;
    expect(s.path).toBe(join(cacheRoot, s.snapshotDigest));
    for (const digest of [s.manifestDigest, s.dependencyContentDigest, s.dependencyManifestDigest, s.snapshotDigest]) {
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(s.harnessIdentity).toBe(harness);
    expect(s.copyEntries.map((e) => e.path)).toEqual([
      "eval/workflow_bench/review_cases/pr-1.patch",
      "fixtures",
      "fixtures/data.json",
      "fixtures/nested",
      "fixtures/nested/more.txt",
    ]);
    expect(s.copyEntries.every((e) => e.mode === 0)).toBe(true);
    const nodeModules = s.dependencies[0];
    expect(nodeModules?.viteTemp).toBe(true);
    expect(nodeModules?.entries.find((e) => e.path === ".vite-temp")).toMatchObject({ kind: "directory" });
    expect(nodeModules?.entries.find((e) => e.path === ".bin/tool")).toMatchObject({ kind: "symlink", link_target: "../tool/cli.js" });
    expect(nodeModules?.entries.find((e) => e.path === "tool/run.sh")?.mode).toBe(0o755);
    const depRoot = join(s.path, "deps", "0");
    expect(readdirSync(join(depRoot, ".vite-temp"))).toEqual([]);
    expect(lstatSync(join(depRoot, "tool/cli.js")).mode & 0o777).toBe(0o400);
    expect(lstatSync(join(depRoot, "tool/run.sh")).mode & 0o777).toBe(0o500);
    expect(lstatSync(join(depRoot, "tool")).mode & 0o777).toBe(0o500);
    expect(readlinkSync(join(depRoot, ".bin/tool"))).toBe("../tool/cli.js");
    expect(s.dependencies[1]?.viteTemp).toBe(false);
  });

  it("computes every digest exactly as §4.5 defines it (independent recomputation)", async () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const result = await snap({
      sandbox_copy: ["fixtures/data.json"],
      sandbox_dependencies: [{ source: "shared/dist", target: "shared/dist" }],
    });
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const s = result.value;
    // Copies: mode 0, compact key-sorted JSON list sorted by path.
    const copyJson = `[{"kind":"file","link_target":null,"mode":0,"path":"fixtures/data.json","sha256":"${sha("{\"a\":1}\n")}","size":8}]`;
    expect(s.manifestDigest).toBe(sha(copyJson));
    // Dependencies keep the captured mode; paths are relative to the dependency root.
    const depRoot = join(source, "shared/dist");
    const dirMode = lstatSync(depRoot).mode & 0o7777;
    const fileMode = lstatSync(join(depRoot, "index.js")).mode & 0o7777;
    const entriesJson =
      `[{"kind":"file","link_target":null,"mode":${fileMode},"path":"index.js","sha256":"${sha("export {};\n")}","size":11}]`;
    expect(dirMode).not.toBe(0);
    expect(s.dependencyContentDigest).toBe(sha(`[{"entries":${entriesJson}}]`));
    const depManifestJson = `{"dependencies":[{"content":"${sha(entriesJson)}","source":"shared/dist","target":"shared/dist"}],"schema_version":1}`;
    expect(s.dependencyManifestDigest).toBe(sha(depManifestJson));
    const snapshotJson =
      `{"declarations":{"sandbox_copy":["fixtures/data.json"],"sandbox_dependencies":[{"source":"shared/dist","target":"shared/dist"}]},` +
      `"dependency_content_digest":"${s.dependencyContentDigest}","dependency_manifest_digest":"${s.dependencyManifestDigest}",` +
      `"harness_identity":"","manifest_digest":"${s.manifestDigest}","repo_identity":"${source}","resolved_sha":"${SHA}","schema_version":3}`;
    expect(s.snapshotDigest).toBe(sha(snapshotJson));
  });

  it("is content-addressed: the same inputs give the same digests and path, a changed byte a new one", async () => {
    const a = await snap();
    const b = await snap();
    if (!a.ok || !b.ok) throw new Error("snapshot failed");
    expect(b.value.snapshotDigest).toBe(a.value.snapshotDigest);
    expect(b.value.path).toBe(a.value.path);
    expect(readdirSync(cacheRoot).filter((n) => n.startsWith(".staging-"))).toEqual([]);
    writeFileSync(join(source, "node_modules/tool/cli.js"), "console.log('changed');\n");
    const c = await snap();
    if (!c.ok) throw new Error("snapshot failed");
    expect(c.value.dependencyContentDigest).not.toBe(a.value.dependencyContentDigest);
    expect(c.value.manifestDigest).toBe(a.value.manifestDigest);
    expect(c.value.snapshotDigest).not.toBe(a.value.snapshotDigest);
  });

  it.each([
    ["a symlink inside a sandbox_copy", () => symlinkSync("data.json", join(source, "fixtures/link")), "sandbox_copy[0]"],
    ["an escaping dependency link", () => symlinkSync("../../../etc/passwd", join(source, "node_modules/.bin/evil")), "sandbox_dependencies[0].source"],
    ["an absolute dependency link", () => symlinkSync("/etc/passwd", join(source, "node_modules/.bin/abs")), "sandbox_dependencies[0].source"],
    ["a dangling dependency link", () => symlinkSync("../tool/missing.js", join(source, "node_modules/.bin/gone")), "sandbox_dependencies[0].source"],
    ["a symlinked declared root", () => symlinkSync("fixtures", join(source, "fixtures-link")), "sandbox_copy[0]", ["fixtures-link"]],
  ] as const)("refuses %s, naming the field", async (_label, plant, field, copy?: readonly string[]) => {
    plant();
    const decl = copy === undefined ? declarations : { sandbox_copy: [...copy] };
    const result = await snap(decl);
    expect(result).toMatchObject({ ok: false, error: { kind: "invalid-declaration", field } });
    expect(readdirSync(cacheRoot)).toEqual([]);
  });

  it.each([
    [{ sandbox_copy: ["../escape"] }, "sandbox_copy[0]"],
    [{ sandbox_copy: ["/abs"] }, "sandbox_copy[0]"],
    [{ sandbox_copy: ["fixtures", "fixtures/nested"] }, "sandbox_copy[1]"],
    [{ sandbox_copy: [".gitnexus/meta.json"] }, "sandbox_copy[0]"],
    [{ sandbox_copy: ["eval/workflow_bench/oracles/x.ts"] }, "sandbox_copy[0]"],
    [{ sandbox_dependencies: [{ source: "a", target: "x" }, { source: "b", target: "x/y" }] }, "sandbox_dependencies[1].target"],
    [{ sandbox_dependencies: [{ source: "eval/workflow_bench/x", target: "x" }] }, "sandbox_dependencies[0].source"],
    [{ sandbox_dependencies: [{ source: "a", target: "b", extra: 1 }] }, "sandbox_dependencies[0]"],
  ])("refuses declaration %j naming %s", async (decl, field) => {
    const result = await snap(decl as TaskAssetDeclarationsInput);
    expect(result).toMatchObject({ ok: false, error: { kind: "invalid-declaration", field } });
  });

  it("enforces the entry and byte limits", async () => {
    await expect(snap(declarations, { ...DEFAULT_ASSET_LIMITS, maxEntries: 3 })).rejects.toMatchObject({ code: "SANITIZER_ASSET_LIMIT" });
    await expect(snap(declarations, { ...DEFAULT_ASSET_LIMITS, maxBytes: 10 })).rejects.toMatchObject({ code: "SANITIZER_ASSET_LIMIT" });
    await expect(snap(declarations, { ...DEFAULT_ASSET_LIMITS, maxPathBytes: 12 })).rejects.toMatchObject({ code: "SANITIZER_ASSET_LIMIT" });
    expect(readdirSync(cacheRoot)).toEqual([]);
  });

  it("detects a file that grows while it is captured", async () => {
    const growing = join(source, "fixtures/growing.log");
    writeFileSync(growing, "x".repeat(8 * 1024 * 1024));
    const writer = spawn("sh", ["-c", `while :; do printf 'y' >> '${growing}'; done`], { stdio: "ignore" });
    try {
      let caught: unknown;
      for (let attempt = 0; attempt < 10 && caught === undefined; attempt += 1) {
        await snap({ sandbox_copy: ["fixtures"] }).catch((error: unknown) => {
          caught = error;
        });
      }
      expect(caught).toMatchObject({ code: "SANITIZER_ASSET_MUTATED" });
    } finally {
      writer.kill("SIGKILL");
    }
  });

  it("materialises copies writable into a clone, replaces declared roots exactly and returns read-only mounts", async () => {
    const result = await snap();
    if (!result.ok) throw new Error("snapshot failed");
    const clone = join(scratch, "cell");
    writeFiles(clone, { "fixtures/stale.txt": "stale\n", "keep.txt": "keep\n" });
    const mounts = await materializeTaskAssets(result.value, clone);
    expect(existsSync(join(clone, "fixtures/stale.txt"))).toBe(false);
    expect(readFileSync(join(clone, "fixtures/data.json"), "utf8")).toBe("{\"a\":1}\n");
    expect(lstatSync(join(clone, "fixtures/data.json")).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(clone, "eval/workflow_bench/review_cases/pr-1.patch"), "utf8")).toContain("diff --git");
    expect(readFileSync(join(clone, "keep.txt"), "utf8")).toBe("keep\n");
    expect(lstatSync(join(clone, "node_modules")).isDirectory()).toBe(true);
    expect(mounts.readOnlyBinds).toEqual([
      { source: join(result.value.path, "deps", "0"), target: "/workspace/node_modules" },
      { source: join(result.value.path, "deps", "1"), target: "/workspace/shared/dist" },
    ]);
    expect(mounts.tmpfs).toEqual(["/workspace/node_modules/.vite-temp"]);
    expect(readdirSync(scratch).filter((n) => n.startsWith(".wfbench-stage-"))).toEqual([]);
  });

  it("refuses to materialise through a symlinked directory in the clone", async () => {
    const result = await snap({ sandbox_copy: ["fixtures/nested"] });
    if (!result.ok) throw new Error("snapshot failed");
    const clone = join(scratch, "cell2");
    mkdirSync(clone);
    mkdirSync(join(scratch, "elsewhere"));
    symlinkSync(join(scratch, "elsewhere"), join(clone, "fixtures"));
    await expect(materializeTaskAssets(result.value, clone)).rejects.toMatchObject({ code: "SANITIZER_UNSAFE_LAYOUT" });
    expect(readdirSync(join(scratch, "elsewhere"))).toEqual([]);
  });

  it("caches one snapshot per key and memoises failures", async () => {
    const cache = createTaskAssetCache(cacheRoot);
    const request = { repoIdentity: source, resolvedSha: SHA, sourceRoot: source, harnessRoot: harness, declarations };
    const [a, b] = await Promise.all([cache.acquire(request), cache.acquire(request)]);
    expect(a).toBe(b);
    const bad = { ...request, declarations: { sandbox_copy: ["missing"] } };
    const first = await cache.acquire(bad);
    writeFiles(source, { missing: "now here\n" });
    const second = await cache.acquire(bad);
    expect(second).toBe(first);
    expect(first).toMatchObject({ ok: false, error: { kind: "assets-failed", code: "invalid-declaration" } });
    await cache.dispose();
    expect(a.ok && existsSync(a.value.path)).toBe(false);
  });
});
