import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createHostGitRunner } from "@wfbench/clone-sanitizer";
import type { Task } from "../src/load-task-suite.js";
import { createTaskSourceResolver } from "../src/resolve-task-source.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/plain-source", import.meta.url));
const required = process.env["CI"] === "true";
const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
if (!hasGit && !required) process.stderr.write("resolve-task-source.int.test.ts skipped (set CI=true to make this a failure): git is not on PATH\n");

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "task-suite-"));
  dirs.push(dir);
  return dir;
}
function task(repo: string, ref = "HEAD"): Task {
  return { id: "t", class: "trivial", repo, prompt: "p", verify: "true", ref, setup: null, expensive: false, sandboxCopy: [], sandboxDependencies: [], oracle: { command: "true", files: [{ source: "a", target: "a" }] } };
}

describe.skipIf(!hasGit && !required)("createTaskSourceResolver (real git)", () => {
  it("commits a plain-file source with a fixed identity, so the sha is the same on every run", async () => {
    const git = createHostGitRunner();
    try {
      const first = await createTaskSourceResolver({ git, workDir: join(tempDir(), "w") }).resolve(task(FIXTURE));
      const second = await createTaskSourceResolver({ git, workDir: join(tempDir(), "w") }).resolve(task(FIXTURE));
      expect(first.ok && first.value.origin).toBe("plain-files");
      expect(first.ok && first.value.sha).toMatch(/^[0-9a-f]{40}$/u);
      expect(second.ok && second.value.sha).toBe(first.ok && first.value.sha);
      const log = spawnSync("git", ["log", "--format=%an <%ae> %aI %cI", "-1"], { cwd: first.ok ? first.value.repo : "/", encoding: "utf8" });
      expect(log.stdout.trim()).toBe("wfbench task source <task-source@wfbench.invalid> 2000-01-01T00:00:00+00:00 2000-01-01T00:00:00+00:00");
    } finally {
      git.dispose();
    }
  });

  it("resolves a git repository's ref and refuses a missing ref or a plain source with a ref", async () => {
    const git = createHostGitRunner();
    try {
      const made = await createTaskSourceResolver({ git, workDir: join(tempDir(), "w") }).resolve(task(FIXTURE));
      if (!made.ok) throw new Error(made.error.message);
      const resolver = createTaskSourceResolver({ git, workDir: join(tempDir(), "w") });
      const head = await resolver.resolve(task(made.value.repo));
      expect(head.ok && head.value).toEqual({ repo: made.value.repo, sha: made.value.sha, origin: "git", assets: null });
      const missing = await resolver.resolve(task(made.value.repo, "no-such-branch"));
      expect(!missing.ok && missing.error).toMatchObject({ task: "t", field: "ref" });
      const plainRef = await resolver.resolve(task(FIXTURE, "v1"));
      expect(!plainRef.ok && plainRef.error.field).toBe("ref");
      const absent = await resolver.resolve(task(join(tempDir(), "nope")));
      expect(!absent.ok && absent.error.field).toBe("repo");
    } finally {
      git.dispose();
    }
  });

  it("refuses a plain-file source holding a symlink (top level or nested) as a repo refusal, copying nothing", async () => {
    const src = join(tempDir(), "src");
    cpSync(FIXTURE, src, { recursive: true });
    symlinkSync("/etc/passwd", join(src, "leak"));
    const nested = join(tempDir(), "nested");
    cpSync(FIXTURE, nested, { recursive: true });
    mkdirSync(join(nested, "deep", "er"), { recursive: true });
    symlinkSync("/etc", join(nested, "deep", "er", "etc"));
    const git = createHostGitRunner();
    try {
      const workDir = join(tempDir(), "w");
      const resolver = createTaskSourceResolver({ git, workDir });
      expect(await resolver.resolve(task(src))).toEqual({ ok: false, error: { task: "t", field: "repo", message: `${join(src, "leak")} is not a regular file or directory; plain-file task sources hold only files and directories` } });
      expect(await resolver.resolve({ ...task(nested) })).toMatchObject({ ok: false, error: { field: "repo", message: expect.stringContaining(join(nested, "deep", "er", "etc")) } });
      expect(existsSync(workDir)).toBe(false);
    } finally {
      git.dispose();
    }
  });
});
