import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { removeTree } from "@wfbench/durable-fs";
import { DEFAULT_GIT_TIMEOUTS, type GitContext } from "../src/run-git.js";
import { MAX_CLONE_REFS, sanitizeClone } from "../src/sanitize-clone.js";
import { verifySanitizedClone } from "../src/verify-sanitized-clone.js";
import { commitAll, git, hasGit, initRepo, makeScratch, writeFiles } from "./helpers/git-fixture.js";
import { recoverableText } from "./helpers/recover.js";

const required = process.env.CI === "true";
const SECRET = "SECRET-DEBRIS-5f1e";

/** Each entry plants the secret in one git or filesystem hiding place of an already checked-out clone. */
const REMOVED: readonly (readonly [string, (clone: string) => void])[] = [
  ["a plain file in .git/objects", (c) => writeFileSync(join(c, ".git/objects/notes.txt"), `${SECRET}\n`)],
  ["a quarantine directory in .git/objects", (c) => writeFiles(c, { ".git/objects/incoming-x/ab/cdef": `${SECRET}\n` })],
  ["a non-object file in a fan-out directory", (c) => writeFiles(c, { ".git/objects/ab/garbage": `${SECRET}\n` })],
  ["an odd-named pack", (c) => writeFileSync(join(c, ".git/objects/pack/secret.pack"), `${SECRET}\n`)],
  ["a pack without its index", (c) => {
    git(c, ["hash-object", "-w", "--stdin"], { input: `${SECRET}\n` });
    git(c, ["repack", "-q"]);
    const pack = readdirSync(join(c, ".git/objects/pack")).find((n) => n.endsWith(".pack")) ?? "";
    copyFileSync(join(c, ".git/objects/pack", pack), join(c, ".git/objects/pack", `pack-${"1".repeat(40)}.pack`));
  }],
  ["a .keep pack", (c) => plantPackMarker(c, ".keep")],
  ["a .promisor pack", (c) => plantPackMarker(c, ".promisor")],
  ["a multi-pack-index and commit-graph", (c) => {
    git(c, ["hash-object", "-w", "--stdin"], { input: `${SECRET}\n` });
    git(c, ["repack", "-q"]);
    git(c, ["multi-pack-index", "write"]);
    git(c, ["commit-graph", "write", "--reachable"]);
  }],
  ["objects/info/alternates", (c) => {
    const other = initRepo(join(c, "..", "alternate-store"));
    git(other, ["hash-object", "-w", "--stdin"], { input: `${SECRET}\n` });
    mkdirSync(join(c, ".git/objects/info"), { recursive: true });
    writeFileSync(join(c, ".git/objects/info/alternates"), `${join(other, ".git/objects")}\n`);
  }],
  ["FETCH_HEAD, ORIG_HEAD, shallow and info/grafts", (c) => {
    const head = git(c, ["rev-parse", "HEAD"]);
    writeFileSync(join(c, ".git/FETCH_HEAD"), `${head}\t\tbranch '${SECRET}'\n`);
    writeFileSync(join(c, ".git/ORIG_HEAD"), `${head}\n`);
    writeFileSync(join(c, ".git/shallow"), `${head}\n`);
    writeFiles(c, { ".git/info/grafts": `${SECRET}\n` });
  }],
  ["a split index's shared index", (c) => {
    writeFileSync(join(c, "staged.txt"), `${SECRET}\n`);
    git(c, ["add", "staged.txt"]);
    git(c, ["update-index", "--split-index"]);
    git(c, ["rm", "-q", "--cached", "staged.txt"]);
    rmSync(join(c, "staged.txt"));
  }],
  ["rerere, lost-found, logs and COMMIT_EDITMSG", (c) => {
    writeFiles(c, {
      ".git/rr-cache/abc/preimage": `${SECRET}\n`,
      ".git/lost-found/other/x": `${SECRET}\n`,
      ".git/logs/refs/heads/gone": `${SECRET}\n`,
      ".git/COMMIT_EDITMSG": `${SECRET}\n`,
    });
  }],
];

/** Worktree leftovers git status does not always report; each must refuse the template. */
const REFUSED: readonly (readonly [string, (clone: string) => void])[] = [
  ["an untracked file", (c) => writeFileSync(join(c, "untracked.txt"), `${SECRET}\n`)],
  ["a gitignored file", (c) => {
    writeFileSync(join(c, ".gitignore"), "*.log\n");
    git(c, ["add", ".gitignore"]);
    git(c, ["commit", "-q", "-m", "ignore logs"]);
    writeFileSync(join(c, "debug.log"), `${SECRET}\n`);
  }],
  ["an ignored nested repository", (c) => {
    writeFileSync(join(c, ".gitignore"), "nested/\n");
    git(c, ["add", ".gitignore"]);
    git(c, ["commit", "-q", "-m", "ignore nested"]);
    initRepo(join(c, "nested"));
    writeFileSync(join(c, "nested/.git/description"), `${SECRET}\n`);
  }],
  ["an empty directory whose name carries the secret", (c) => mkdirSync(join(c, `${SECRET}-dir`))],
  ["files inside an uninitialised submodule's directory", (c) => {
    const sub = git(c, ["hash-object", "-w", "-t", "commit", "--stdin"], {
      input: `tree ${git(c, ["rev-parse", "HEAD^{tree}"])}\nauthor a <a@a> 0 +0000\ncommitter a <a@a> 0 +0000\n\nsub\n`,
    });
    git(c, ["update-index", "--add", "--cacheinfo", `160000,${sub},vendor/sub`]);
    git(c, ["commit", "-q", "-m", "add gitlink"]);
    writeFiles(c, { "vendor/sub/leftover.txt": `${SECRET}\n` });
  }],
];

function plantPackMarker(clone: string, extension: string): void {
  git(clone, ["hash-object", "-w", "--stdin"], { input: `${SECRET}\n` });
  git(clone, ["repack", "-q"]);
  const pack = readdirSync(join(clone, ".git/objects/pack")).find((n) => n.endsWith(".pack")) ?? "";
  writeFileSync(join(clone, ".git/objects/pack", pack.replace(/\.pack$/, extension)), "");
}

describe.skipIf(!hasGit() && !required)("sanitizeClone against .git and worktree debris", () => {
  const runner = createHostGitRunner();
  const ctx: GitContext = { runner, timeouts: DEFAULT_GIT_TIMEOUTS };
  const scratches: string[] = [];
  afterAll(async () => {
    runner.dispose();
    for (const scratch of scratches) await removeTree(scratch);
  });

  function freshClone(): string {
    const scratch = makeScratch();
    scratches.push(scratch);
    const clone = initRepo(join(scratch, "clone"));
    writeFiles(clone, { "a.txt": "a\n" });
    commitAll(clone, "base");
    git(clone, ["checkout", "-q", "--detach"]);
    return clone;
  }

  // Each case owns its scratch clone, so they run concurrently (git spawns dominate, not CPU).
  it.concurrent.for(REMOVED)("removes the secret planted in %s", async ([, plant], { expect }) => {
    const clone = freshClone();
    plant(clone);
    expect(recoverableText(clone), "control").toContain(SECRET);
    const outcome = await sanitizeClone(ctx, clone, { hiddenPaths: [], neutralize: [] });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
    await verifySanitizedClone(ctx, clone, outcome.value, []);
    expect(recoverableText(clone)).not.toContain(SECRET);
  });

  it("deletes up to MAX_CLONE_REFS refs and refuses one more", async () => {
    const atLimit = freshClone();
    const head = git(atLimit, ["rev-parse", "HEAD"]);
    // refs/heads/main already exists, so 1,023 more make exactly 1,024.
    const creates = (n: number) => Array.from({ length: n }, (_, i) => `create refs/tags/t${i} ${head}\n`).join("");
    git(atLimit, ["update-ref", "--stdin"], { input: creates(MAX_CLONE_REFS - 1) });
    const ok = await sanitizeClone(ctx, atLimit, { hiddenPaths: [], neutralize: [] });
    expect(ok.ok).toBe(true);
    const overLimit = freshClone();
    git(overLimit, ["update-ref", "--stdin"], { input: creates(MAX_CLONE_REFS) });
    await expect(sanitizeClone(ctx, overLimit, { hiddenPaths: [], neutralize: [] })).rejects.toMatchObject({
      code: "SANITIZER_TOO_MANY_REFS",
    });
  });

  it("refuses a pseudo-ref that is not a regular file", async () => {
    const clone = freshClone();
    mkdirSync(join(clone, ".git/ORIG_HEAD"));
    await expect(sanitizeClone(ctx, clone, { hiddenPaths: [], neutralize: [] })).rejects.toMatchObject({
      code: "SANITIZER_UNSAFE_LAYOUT",
    });
  });

  it("refuses a checkout whose .git is a file (a linked worktree)", async () => {
    const clone = freshClone();
    const linked = join(clone, "..", "linked");
    git(clone, ["worktree", "add", "-q", "--detach", linked]);
    await expect(sanitizeClone(ctx, linked, { hiddenPaths: [], neutralize: [] })).rejects.toMatchObject({
      code: "SANITIZER_UNSAFE_LAYOUT",
    });
  });

  it.concurrent.for(REFUSED)("refuses a template that still holds %s", async ([, plant], { expect }) => {
    const clone = freshClone();
    plant(clone);
    const outcome = await sanitizeClone(ctx, clone, { hiddenPaths: [], neutralize: [] });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
    await expect(verifySanitizedClone(ctx, clone, outcome.value, [])).rejects.toMatchObject({
      code: "SANITIZER_VERIFY_FAILED",
    });
  });
});
