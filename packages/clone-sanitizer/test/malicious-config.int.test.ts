import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GitRunner } from "../src/git-runner.js";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { prepareTemplate } from "../src/prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";
import { DEFAULT_GIT_TIMEOUTS, runGit, type GitContext } from "../src/run-git.js";
import { sanitizeClone } from "../src/sanitize-clone.js";
import { commitAll, git, gitStatus, hasGit, initRepo, makeScratch, writeFiles } from "./helpers/git-fixture.js";

const required = process.env.CI === "true";
const MARK = join(import.meta.dirname, "fixtures", "malicious-config", "mark.sh");
const HOOKS = ["pre-commit", "post-checkout", "post-commit", "reference-transaction", "post-index-change", "pre-auto-gc", "post-rewrite"];

/**
 * Arm `repo` (a work tree) with config that runs mark.sh from fsmonitor, every hook, a filter and ssh. The scripts
 * and markers live in `evil` outside the repository, so deleting `.git` debris cannot hide a trap that fired.
 */
function armRepository(repo: string, evil: string): string {
  const markers = join(evil, "markers");
  mkdirSync(join(evil, "hooks"), { recursive: true });
  mkdirSync(markers, { recursive: true });
  copyFileSync(MARK, join(evil, "mark.sh"));
  chmodSync(join(evil, "mark.sh"), 0o755);
  for (const hook of HOOKS) {
    writeFileSync(join(evil, "hooks", hook), `#!/bin/sh\n"${join(evil, "mark.sh")}" hook-${hook}\n`, { mode: 0o755 });
  }
  writeFileSync(join(evil, "fsmonitor"), `#!/bin/sh\n"${join(evil, "mark.sh")}" fsmonitor\nexit 1\n`, { mode: 0o755 });
  writeFileSync(join(evil, "ssh"), `#!/bin/sh\n"${join(evil, "mark.sh")}" ssh\nexit 1\n`, { mode: 0o755 });
  const mark = join(evil, "mark.sh");
  git(repo, ["config", "core.fsmonitor", join(evil, "fsmonitor")]);
  git(repo, ["config", "core.hooksPath", join(evil, "hooks")]);
  git(repo, ["config", "core.sshCommand", join(evil, "ssh")]);
  git(repo, ["config", "filter.evil.clean", `sh -c '"${mark}" filter-clean; cat'`]);
  git(repo, ["config", "filter.evil.smudge", `sh -c '"${mark}" filter-smudge; cat'`]);
  return markers;
}

function markers(dir: string): string[] {
  return readdirSync(dir).sort();
}

function dirtyStat(path: string): void {
  // A future mtime makes git re-hash the file, which runs a configured clean filter.
  const when = new Date(Date.now() + 60_000);
  utimesSync(path, when, when);
}

describe.skipIf(!hasGit() && !required)("a task repository's hostile config never runs", () => {
  const runner = createHostGitRunner();
  let scratch: string;
  let repo: string;
  let sha: string;
  let markerDir: string;

  beforeEach(() => {
    scratch = makeScratch();
    repo = initRepo(join(scratch, "hostile"));
    writeFiles(repo, { ".gitattributes": "*.filtered filter=evil\n", "data.filtered": "payload\n", "a.txt": "a\n" });
    sha = commitAll(repo, "hostile");
    markerDir = armRepository(repo, join(scratch, "evil-source"));
  });
  afterEach(async () => {
    await removeTree(scratch);
  });
  afterAll(() => runner.dispose());

  it("fires every trap under plain git (control)", () => {
    dirtyStat(join(repo, "data.filtered"));
    gitStatus(repo, ["status"]);
    gitStatus(repo, ["checkout", "-q", "-B", "other"]);
    gitStatus(repo, ["ls-remote", "ssh://example.invalid/repo"]);
    rmSync(join(repo, "data.filtered"));
    gitStatus(repo, ["checkout", "--", "data.filtered"]);
    expect(markers(markerDir)).toEqual(
      expect.arrayContaining(["filter-clean", "filter-smudge", "fsmonitor", "hook-post-checkout", "hook-reference-transaction", "ssh"]),
    );
  });

  it("runs none of them when the hardened runner works inside that repository", async () => {
    const ctx: GitContext = { runner, timeouts: DEFAULT_GIT_TIMEOUTS };
    await runGit(ctx, repo, ["status", "--porcelain"]);
    await runGit(ctx, repo, ["checkout", "-q", "-B", "other"]);
    await runGit(ctx, repo, ["commit", "-q", "--allow-empty", "-m", "x"], {
      env: { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
    const ssh = await runGit(ctx, repo, ["ls-remote", "ssh://example.invalid/repo"], { accept: [128] });
    expect(ssh.stderr).toMatch(/transport 'ssh' not allowed/);
    await runGit(ctx, repo, ["gc", "--auto"]);
    expect(markers(markerDir)).toEqual([]);
  });

  it("runs none of them while a template is built from that repository", async () => {
    dirtyStat(join(repo, "data.filtered"));
    const built = await prepareTemplate({ repo, sha, hiddenPaths: ["a.txt"], neutralize: [] }, { runner, parentDir: scratch });
    expect(built.ok).toBe(true);
    expect(markers(markerDir)).toEqual([]);
  });

  it("runs none of them when the hostile config sits inside the clone being sanitized", async () => {
    const clone = join(scratch, "clone");
    git(scratch, ["clone", "-q", "--no-local", repo, clone]);
    const cloneMarkers = armRepository(clone, join(scratch, "evil-clone"));
    dirtyStat(join(clone, "data.filtered"));
    const ctx: GitContext = { runner, timeouts: DEFAULT_GIT_TIMEOUTS };
    const outcome = await sanitizeClone(ctx, clone, { hiddenPaths: ["a.txt"], neutralize: [{ path: "data.filtered", content: "inert\n" }] });
    expect(outcome.ok).toBe(true);
    expect(markers(cloneMarkers)).toEqual([]);
    expect(git(clone, ["config", "--list", "--local"])).not.toMatch(/fsmonitor|hookspath|filter|sshcommand|remote/i);
  });

  it("lists filter drivers only while the clone still holds the config it came with", async () => {
    const clone = join(scratch, "clone");
    git(scratch, ["clone", "-q", "--no-local", repo, clone]);
    armRepository(clone, join(scratch, "evil-clone"));
    const argvs: (readonly string[])[] = [];
    const counting: GitRunner = { run: (invocation) => (argvs.push(invocation.argv), runner.run(invocation)) };
    const outcome = await sanitizeClone({ runner: counting, timeouts: DEFAULT_GIT_TIMEOUTS }, clone, { hiddenPaths: ["a.txt"], neutralize: [] });
    expect(outcome.ok).toBe(true);
    const listings = argvs.filter((argv) => argv.includes("--get-regexp"));
    // The two reads before the config is replaced (HEAD and the object format) each list the drivers; nothing after.
    expect(listings).toHaveLength(2);
    expect(argvs.length).toBeGreaterThan(15);
  });

  it("refuses a clone whose .git/commondir borrows another git directory's config, and runs nothing from it", async () => {
    const clone = join(scratch, "clone");
    git(scratch, ["clone", "-q", "--no-local", repo, clone]);
    const cloneMarkers = armRepository(clone, join(scratch, "evil-clone"));
    // A full copy of the armed git dir as the common dir: git reads its config (the filter) instead of .git/config.
    const common = join(scratch, "common.git");
    cpSync(join(clone, ".git"), common, { recursive: true });
    writeFileSync(join(clone, ".git", "commondir"), `${common}\n`);
    dirtyStat(join(clone, "data.filtered"));
    const ctx: GitContext = { runner, timeouts: DEFAULT_GIT_TIMEOUTS };
    await expect(sanitizeClone(ctx, clone, { hiddenPaths: ["a.txt"], neutralize: [{ path: "data.filtered", content: "inert\n" }] })).rejects.toMatchObject({
      code: "SANITIZER_UNSAFE_LAYOUT",
      message: expect.stringContaining("commondir"),
    });
    expect(markers(cloneMarkers)).toEqual([]);
  });

  it("replaces a .git/config planted as a link instead of writing through it", async () => {
    const clone = join(scratch, "clone");
    git(scratch, ["clone", "-q", "--no-local", repo, clone]);
    const outside = join(scratch, "outside-config");
    writeFileSync(outside, readFileSync(join(clone, ".git", "config")));
    const before = readFileSync(outside, "utf8");
    rmSync(join(clone, ".git", "config"));
    symlinkSync(outside, join(clone, ".git", "config"));
    const outcome = await sanitizeClone({ runner, timeouts: DEFAULT_GIT_TIMEOUTS }, clone, { hiddenPaths: ["a.txt"], neutralize: [] });
    expect(outcome.ok).toBe(true);
    expect(readFileSync(outside, "utf8")).toBe(before);
    expect(git(clone, ["config", "--list", "--local"])).not.toMatch(/remote/i);
  });
});
