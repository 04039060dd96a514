import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertSelfContained } from "../src/assert-self-contained.js";
import type { GitInvocation, GitOutcome, GitRunner } from "../src/git-runner.js";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { materializeCell } from "../src/materialize-cell.js";
import type { Template } from "../src/prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";
import { createTemplateCache } from "../src/template-cache.js";
import { commitAll, git, hasGit, initRepo, makeScratch, writeFiles } from "./helpers/git-fixture.js";

const required = process.env.CI === "true";

function countingRunner(inner: GitRunner): GitRunner & { clones: number } {
  const wrapped = {
    clones: 0,
    async run(invocation: GitInvocation): Promise<GitOutcome> {
      if (invocation.argv.includes("clone")) wrapped.clones += 1;
      return inner.run(invocation);
    },
  };
  return wrapped;
}

describe.skipIf(!hasGit() && !required)("template cache and cell copies", () => {
  const host = createHostGitRunner();
  let scratch: string;
  let repo: string;
  let sha: string;

  beforeAll(() => {
    scratch = makeScratch();
    repo = initRepo(join(scratch, "repo"));
    writeFiles(repo, { "src/a.ts": "export const a = 1;\n", "bin/run.sh": "#!/bin/sh\necho run\n", "secret/oracle.txt": "ORACLE\n" });
    chmodSync(join(repo, "bin/run.sh"), 0o755);
    sha = commitAll(repo, "base");
  });
  afterAll(async () => {
    host.dispose();
    await removeTree(scratch);
  });

  it("shares one build among concurrent requests for one key", async () => {
    const runner = countingRunner(host);
    const cache = createTemplateCache({ runner, parentDir: scratch });
    const request = { repo, sha, hiddenPaths: ["secret"], neutralize: [] };
    const results = await Promise.all([cache.acquire(request), cache.acquire({ ...request }), cache.acquire(request)]);
    expect(runner.clones).toBe(1);
    const paths = new Set(results.map((r) => (r.ok ? r.value.path : "failed")));
    expect(paths.size).toBe(1);
    expect(results.every((r) => r.ok)).toBe(true);
    const other = await cache.acquire({ ...request, hiddenPaths: [] });
    expect(runner.clones).toBe(2);
    expect(other.ok && other.value.sanitizedSha).not.toBe(results[0]?.ok && results[0].value.sanitizedSha);
    await cache.dispose();
    expect(results[0]?.ok && existsSync(results[0].value.path)).toBe(false);
  });

  it("memoises a failure and never retries it, naming the cause", async () => {
    const runner = countingRunner(host);
    const cache = createTemplateCache({ runner, parentDir: scratch });
    const missing = { repo: join(scratch, "no-such-repo"), sha, hiddenPaths: [], neutralize: [] };
    const first = await cache.acquire(missing);
    const second = await cache.acquire(missing);
    expect(runner.clones).toBe(1);
    expect(first.ok).toBe(false);
    expect(second).toBe(first);
    if (!first.ok) {
      expect(first.error.code).toBe("SANITIZER_GIT_FAILED");
      expect(first.error.message).toContain("no-such-repo");
    }
    await cache.dispose();
  });

  describe("materializeCell", () => {
    let template: Template;
    beforeAll(async () => {
      const cache = createTemplateCache({ runner: host, parentDir: scratch });
      const built = await cache.acquire({ repo, sha, hiddenPaths: ["secret"], neutralize: [] });
      if (!built.ok) throw new Error(built.error.message);
      template = built.value;
    });

    it("makes independent, self-contained copies with the sanitized HEAD", async () => {
      const a = await materializeCell(template, { parentDir: scratch });
      const b = await materializeCell(template, { parentDir: scratch });
      expect(a.copyMethod).toBe("cp");
      await assertSelfContained(a.path);
      expect(git(a.path, ["rev-parse", "HEAD"])).toBe(template.sanitizedSha);
      expect(statSync(join(a.path, "bin/run.sh")).mode & 0o111).not.toBe(0);
      // A commit in one cell is invisible to the other cell and to the template.
      writeFileSync(join(a.path, "src/a.ts"), "export const a = 2;\n");
      git(a.path, ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "agent work"]);
      const newHead = git(a.path, ["rev-parse", "HEAD"]);
      expect(spawnSync("git", ["cat-file", "-e", newHead], { cwd: b.path }).status).not.toBe(0);
      expect(spawnSync("git", ["cat-file", "-e", newHead], { cwd: template.path }).status).not.toBe(0);
      expect(readFileSync(join(b.path, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
      expect(git(template.path, ["status", "--porcelain"])).toBe("");
      await removeTree(a.path);
      await removeTree(b.path);
    });

    it("falls back to a buffered copy after a genuine cp failure", async () => {
      const cell = await materializeCell(template, { parentDir: scratch, cpPath: "/bin/false" });
      expect(cell.copyMethod).toBe("buffered");
      await assertSelfContained(cell.path);
      expect(git(cell.path, ["status", "--porcelain"])).toBe("");
      expect(git(cell.path, ["rev-parse", "HEAD"])).toBe(template.sanitizedSha);
      await removeTree(cell.path);
    });

    it("does not fall back when cp cannot be started (only an exited cp counts), and leaves nothing behind", async () => {
      const parent = join(scratch, "spawn-failure");
      mkdirSync(parent);
      await expect(materializeCell(template, { parentDir: parent, cpPath: "/nonexistent/cp" })).rejects.toMatchObject({
        code: "SANITIZER_COPY_FAILED",
      });
      expect(spawnSync("ls", ["-A", parent], { encoding: "utf8" }).stdout).toBe("");
    });

    it("does not fall back after a timeout or cancellation, and leaves nothing behind", async () => {
      const slow = join(scratch, "slow-cp.sh");
      writeFileSync(slow, "#!/bin/sh\nsleep 30\n", { mode: 0o755 });
      const parent = join(scratch, "timeouts");
      mkdirSync(parent);
      await expect(materializeCell(template, { parentDir: parent, cpPath: slow, timeoutMs: 200 })).rejects.toMatchObject({
        code: "SANITIZER_COPY_TIMEOUT",
      });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(
        materializeCell(template, { parentDir: parent, cpPath: slow, signal: controller.signal }),
      ).rejects.toMatchObject({ code: "SANITIZER_COPY_CANCELLED" });
      expect(spawnSync("ls", ["-A", parent], { encoding: "utf8" }).stdout).toBe("");
    });

    it("refuses a copy whose objects are hardlinked to the template", async () => {
      const cell = await materializeCell(template, { parentDir: scratch });
      const objectsDir = join(cell.path, ".git", "objects", "pack");
      const pack = spawnSync("ls", [objectsDir], { encoding: "utf8" }).stdout.split("\n").find((n) => n.endsWith(".pack"));
      if (pack === undefined) throw new Error("template has no pack");
      spawnSync("ln", ["-f", join(template.path, ".git/objects/pack", pack), join(objectsDir, pack)]);
      await expect(assertSelfContained(cell.path)).rejects.toMatchObject({ code: "SANITIZER_NOT_SELF_CONTAINED" });
      mkdirSync(join(cell.path, ".git/objects/info"), { recursive: true });
      await removeTree(cell.path);
    });
  });
});
