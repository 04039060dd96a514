// The harness's own git directory of a cell: built from a checkout whose .git a task's setup (or an agent) may have
// rewritten, it keeps only the objects and writes everything else itself; installing it never follows what is there.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "@wfbench/durable-fs";
import { HARNESS_GIT_ATTRIBUTES, WORKSPACE_GIT_CONFIG, buildHarnessGitDir, buildWorkspaceGitEnv, installHarnessGitDir } from "../src/harness-git-dir.js";
import { commitAll, git, hasGit, initRepo, makeScratch, writeFiles } from "./helpers/git-fixture.js";

const required = process.env.CI === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");

describe("buildWorkspaceGitEnv", () => {
  it("names the git dir outright and carries every hardening key as command-line config, pathspecs left magic", () => {
    const env = buildWorkspaceGitEnv({ gitDir: "/workspace/.git", workTree: "/workspace" });
    expect(env).toMatchObject({ GIT_DIR: "/workspace/.git", GIT_WORK_TREE: "/workspace", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_ATTR_NOSYSTEM: "1" });
    expect(env["GIT_LITERAL_PATHSPECS"]).toBeUndefined();
    expect(Number(env["GIT_CONFIG_COUNT"])).toBe(WORKSPACE_GIT_CONFIG.length);
    const pairs = WORKSPACE_GIT_CONFIG.map((_, i) => `${env[`GIT_CONFIG_KEY_${i}`] ?? "?"}=${env[`GIT_CONFIG_VALUE_${i}`] ?? "?"}`);
    expect(pairs).toEqual([...WORKSPACE_GIT_CONFIG]);
    expect(pairs).toEqual(expect.arrayContaining(["core.attributesFile=/dev/null", "core.hooksPath=/dev/null", "core.fsmonitor=false", "diff.external="]));
  });
});

describe.skipIf((!hasGit() || !hasBwrap) && !required)("buildHarnessGitDir / installHarnessGitDir (real git in bwrap)", () => {
  let scratch: string;
  beforeEach(() => {
    scratch = makeScratch("wfbench-cs-harness-git-");
  });
  afterEach(async () => {
    await removeTree(scratch);
  });

  function hostileCheckout(): { checkout: string; sha: string; other: string } {
    const other = initRepo(join(scratch, "other"));
    writeFiles(other, { "o.txt": "other\n" });
    commitAll(other, "other");
    const checkout = initRepo(join(scratch, "cell"));
    writeFiles(checkout, { "a.txt": "a\n", "src/b.js": "export {};\n" });
    const sha = commitAll(checkout, "base");
    // What a setup command could leave: a filter driver, attributes, a hook, borrowed objects, a ref and a reflog.
    writeFileSync(join(checkout, ".git/config"), '[filter "x"]\n\tclean = touch /tmp/pwned\n[include]\n\tpath = /etc/gitconfig\n', { flag: "a" });
    mkdirSync(join(checkout, ".git/info"), { recursive: true });
    writeFileSync(join(checkout, ".git/info/attributes"), "* filter=x\n");
    writeFileSync(join(checkout, ".git/info/exclude"), "*\n");
    writeFileSync(join(checkout, ".git/hooks/post-checkout"), "#!/bin/sh\ntouch /tmp/pwned\n", { mode: 0o755 });
    writeFileSync(join(checkout, ".git/objects/info/alternates"), `${join(other, ".git/objects")}\n`);
    return { checkout, sha, other };
  }

  it("keeps only the objects: harness config, attributes and HEAD, empty refs, no hooks, exclude or alternates, an index of HEAD", async () => {
    const { checkout, sha } = hostileCheckout();
    const harness = await buildHarnessGitDir({ checkout, dest: join(scratch, "harness"), headSha: sha, objectFormat: "sha1" });
    expect(harness).toEqual({ gitDir: join(scratch, "harness", ".git"), headSha: sha });
    expect(readdirSync(harness.gitDir).sort()).toEqual(["HEAD", "config", "index", "info", "objects", "refs"]);
    expect(readFileSync(join(harness.gitDir, "HEAD"), "utf8")).toBe(`${sha}\n`);
    expect(readFileSync(join(harness.gitDir, "config"), "utf8")).toBe("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n");
    expect(readdirSync(join(harness.gitDir, "info"))).toEqual(["attributes"]);
    expect(readFileSync(join(harness.gitDir, "info/attributes"), "utf8")).toBe(HARNESS_GIT_ATTRIBUTES);
    expect(existsSync(join(harness.gitDir, "objects/info"))).toBe(false);
    expect(readdirSync(join(harness.gitDir, "refs/heads"))).toEqual([]);
    expect(git(join(scratch, "harness"), ["ls-files", "-s"])).toMatch(/^100644 [0-9a-f]{40} 0\ta\.txt\n100644 [0-9a-f]{40} 0\tsrc\/b\.js\n?$/u);
    expect(existsSync("/tmp/pwned")).toBe(false);
  });

  it("refuses a commit the copied objects do not hold (one that only the borrowed store has)", async () => {
    const { checkout, other } = hostileCheckout();
    const borrowed = git(other, ["rev-parse", "HEAD"]).trim();
    await expect(buildHarnessGitDir({ checkout, dest: join(scratch, "harness"), headSha: borrowed, objectFormat: "sha1" })).rejects.toMatchObject({ code: expect.stringMatching(/^SANITIZER_/u) as unknown });
  });

  it("installs a fresh copy over whatever the session left, moving it aside with one rename (a link is never followed)", async () => {
    const { checkout, sha } = hostileCheckout();
    const harness = await buildHarnessGitDir({ checkout, dest: join(scratch, "harness"), headSha: sha, objectFormat: "sha1" });
    await removeTree(join(checkout, ".git"));
    const hostDir = join(scratch, "host-dir");
    mkdirSync(hostDir);
    writeFileSync(join(hostDir, "keep"), "host\n");
    symlinkSync(hostDir, join(checkout, ".git"));
    await installHarnessGitDir(harness, checkout, join(scratch, "aside-1"));
    expect(readlinkSync(join(scratch, "aside-1"))).toBe(hostDir);
    expect(readdirSync(hostDir)).toEqual(["keep"]);
    expect(lstatSync(join(checkout, ".git")).isDirectory()).toBe(true);
    expect(git(checkout, ["rev-parse", "HEAD"]).trim()).toBe(sha);
    expect(git(checkout, ["status", "--porcelain"])).toBe("");
    // No .git at all, and a plain file in its place, are handled the same way.
    await removeTree(join(checkout, ".git"));
    await installHarnessGitDir(harness, checkout, join(scratch, "aside-2"));
    expect(existsSync(join(scratch, "aside-2"))).toBe(false);
    await removeTree(join(checkout, ".git"));
    writeFileSync(join(checkout, ".git"), "gitdir: /etc\n");
    await installHarnessGitDir(harness, checkout, join(scratch, "aside-3"));
    expect(readFileSync(join(scratch, "aside-3"), "utf8")).toBe("gitdir: /etc\n");
    expect(git(checkout, ["rev-parse", "HEAD"]).trim()).toBe(sha);
  });
});
