import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GitRunner } from "../src/git-runner.js";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { materializeCell } from "../src/materialize-cell.js";
import { prepareTemplate } from "../src/prepare-template.js";
import { removeTree } from "@wfbench/durable-fs";
import { DEFAULT_GIT_TIMEOUTS, runGit, type GitContext } from "../src/run-git.js";
import { createSandboxedGitRunner } from "../src/sandboxed-git-runner.js";
import { blobId, commitAll, git, hasGit, initRepo, makeScratch, writeFiles } from "./helpers/git-fixture.js";

const required = process.env.CI === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");
const MARK = join(import.meta.dirname, "fixtures", "malicious-config", "mark.sh");

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

describe.skipIf((!hasGit() || !hasBwrap) && !required)("createSandboxedGitRunner (real bwrap)", () => {
  const host = createHostGitRunner();
  let scratch: string;

  beforeEach(() => {
    scratch = makeScratch("wfbench-cs-sbx-");
  });
  afterEach(async () => {
    await removeTree(scratch);
  });
  afterAll(() => host.dispose());

  it("builds the same template as the host runner (sanitized sha, manifest digest), usable on the host", async () => {
    const repo = initRepo(join(scratch, "src", "repo"));
    writeFiles(repo, { "a.txt": "a\n", "lib/b.ts": "export const b = 1;\n", "eval/workflow_bench/oracle.json": "{}\n", "labels.json": "[1]\n" });
    commitAll(repo, "one");
    writeFiles(repo, { "a.txt": "a2\n" });
    const sha = commitAll(repo, "two");
    const input = { repo, sha, hiddenPaths: ["labels.json"], neutralize: [{ path: "lib/b.ts", content: "{}\n" }] };
    const hostParent = join(scratch, "host-templates");
    const sbxParent = join(scratch, "sbx-templates");
    mkdirSync(hostParent);
    mkdirSync(sbxParent);
    const sandboxed = createSandboxedGitRunner({ writableRoots: [sbxParent], readOnlyRoots: [join(scratch, "src")] });

    const viaHost = await prepareTemplate(input, { runner: host, parentDir: hostParent });
    const viaSandbox = await prepareTemplate(input, { runner: sandboxed, parentDir: sbxParent });
    if (!viaHost.ok || !viaSandbox.ok) throw new Error("template refused");
    expect(viaSandbox.value.sanitizedSha).toBe(viaHost.value.sanitizedSha);
    expect(viaSandbox.value.manifestDigest).toBe(viaHost.value.manifestDigest);
    expect(viaSandbox.value.path.startsWith(`${sbxParent}/`)).toBe(true);

    // Written by the sandbox's uid 1000, owned on the host by us: host-side git passes safe.directory, cp and rm work.
    const objects = join(viaSandbox.value.path, ".git", "objects");
    expect(statSync(objects).uid).toBe(process.getuid?.());
    expect(git(viaSandbox.value.path, ["rev-parse", "HEAD"])).toBe(viaHost.value.sanitizedSha);
    expect(git(viaSandbox.value.path, ["status", "--porcelain"])).toBe("");
    const cell = await materializeCell(viaSandbox.value, { parentDir: scratch });
    expect(git(cell.path, ["rev-parse", "HEAD"])).toBe(viaHost.value.sanitizedSha);
    // And sandboxed git accepts a host-made copy of it (ownership maps back to the sandbox uid).
    const status = await createSandboxedGitRunner({ writableRoots: [scratch] }).run({ argv: ["status", "--porcelain"], cwd: cell.path, timeoutMs: 30_000 });
    expect(status).toMatchObject({ exitCode: 0, stdout: "" });
    await removeTree(cell.path);
  });

  it("runs no hook, fsmonitor or filter of a hostile repository even with the traps reachable inside the sandbox", async () => {
    // Scripts and markers sit in the same writable root as the repo, so a trap that fired could record itself.
    const repo = initRepo(join(scratch, "hostile"));
    writeFiles(repo, { ".gitattributes": "*.filtered filter=evil\n", "data.filtered": "payload\n", "a.txt": "a\n" });
    const sha = commitAll(repo, "hostile");
    const evil = join(scratch, "evil");
    const markers = join(evil, "markers");
    mkdirSync(join(evil, "hooks"), { recursive: true });
    mkdirSync(markers);
    copyFileSync(MARK, join(evil, "mark.sh"));
    chmodSync(join(evil, "mark.sh"), 0o755);
    for (const hook of ["post-checkout", "reference-transaction", "post-commit", "pre-commit"]) {
      writeFileSync(join(evil, "hooks", hook), `#!/bin/sh\n"${evil}/mark.sh" hook-${hook}\n`, { mode: 0o755 });
    }
    writeFileSync(join(evil, "fsmonitor"), `#!/bin/sh\n"${evil}/mark.sh" fsmonitor\nexit 1\n`, { mode: 0o755 });
    git(repo, ["config", "core.fsmonitor", join(evil, "fsmonitor")]);
    git(repo, ["config", "core.hooksPath", join(evil, "hooks")]);
    git(repo, ["config", "filter.evil.clean", `sh -c '"${evil}/mark.sh" filter-clean; cat'`]);
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(repo, "data.filtered"), future, future);
    const runner = createSandboxedGitRunner({ writableRoots: [scratch] });

    const parent = join(scratch, "templates");
    mkdirSync(parent);
    const built = await prepareTemplate({ repo, sha, hiddenPaths: ["a.txt"], neutralize: [] }, { runner, parentDir: parent });
    expect(built.ok).toBe(true);
    const ctx: GitContext = { runner, timeouts: DEFAULT_GIT_TIMEOUTS };
    await runGit(ctx, repo, ["status", "--porcelain"]);
    await runGit(ctx, repo, ["checkout", "-q", "-B", "other"]);
    expect(readdirSync(markers)).toEqual([]);

    // Control: the same sandbox without the hardening prefix does run the repository's code.
    const plain = await runner.run({ argv: ["status", "--porcelain"], cwd: repo, timeoutMs: 30_000 });
    expect(plain.exitCode).toBe(0);
    expect(readdirSync(markers)).toEqual(expect.arrayContaining(["filter-clean", "fsmonitor"]));
  });

  it("cannot reach the network: a host TCP listener on 127.0.0.1 sees no connection", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      const repo = initRepo(join(scratch, "repo"));
      const argv = ["-c", "protocol.allow=always", "ls-remote", `git://127.0.0.1:${address.port}/x`];
      const invocation = { argv, cwd: repo, timeoutMs: 30_000 };
      const viaHost = await host.run(invocation);
      expect(viaHost.exitCode).not.toBe(0);
      expect(connections).toBe(1); // the control reaches the listener
      const viaSandbox = await createSandboxedGitRunner({ writableRoots: [scratch] }).run(invocation);
      expect(viaSandbox.exitCode).not.toBe(0);
      expect(viaSandbox.stderr).toMatch(/unable to connect|Connection refused/i);
      expect(connections).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("cannot read paths outside its roots, nor write a read-only root", async () => {
    const secret = join(scratch, "outside", "secret.txt");
    writeFiles(scratch, { "outside/secret.txt": "host secret\n" });
    const repo = initRepo(join(scratch, "granted", "repo"));
    writeFiles(repo, { "a.txt": "a\n" });
    const head = commitAll(repo, "one");
    const invocation = { argv: ["hash-object", secret], cwd: repo, timeoutMs: 30_000 };
    expect((await host.run(invocation)).stdout.trim()).toBe(blobId(repo, "host secret\n"));

    const readOnly = createSandboxedGitRunner({ writableRoots: [], readOnlyRoots: [join(scratch, "granted")] });
    const denied = await readOnly.run(invocation);
    expect(denied.exitCode).not.toBe(0);
    expect(denied.stdout).toBe("");
    const env = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
    const commit = await readOnly.run({ argv: ["commit", "-q", "--allow-empty", "-m", "x"], cwd: repo, env, timeoutMs: 30_000 });
    expect(commit.exitCode).not.toBe(0);
    expect(commit.stderr).toMatch(/Read-only file system/);
    expect(git(repo, ["rev-parse", "HEAD"])).toBe(head);
    expect(readFileSync(secret, "utf8")).toBe("host secret\n");

    await expectCode(readOnly.run({ argv: ["status"], cwd: join(scratch, "outside"), timeoutMs: 30_000 }), "SANITIZER_GIT_PATH_NOT_GRANTED");
  });

  it("turns infrastructure failures into typed errors", async () => {
    const repo = initRepo(join(scratch, "repo"));
    writeFiles(repo, { "big.txt": "x".repeat(100_000) });
    commitAll(repo, "big");
    const runner: GitRunner = createSandboxedGitRunner({ writableRoots: [scratch] });
    await expectCode(runner.run({ argv: ["-c", "alias.nap=!sleep 20", "nap"], cwd: repo, timeoutMs: 300 }), "SANITIZER_GIT_TIMEOUT");
    await expectCode(runner.run({ argv: ["show", "HEAD:big.txt"], cwd: repo, timeoutMs: 30_000, maxOutputBytes: 1_000 }), "SANITIZER_GIT_OUTPUT_LIMIT");
    const badBwrap = createSandboxedGitRunner({ writableRoots: [scratch], bwrapPath: join(scratch, "no-bwrap") });
    await expectCode(badBwrap.run({ argv: ["status"], cwd: repo, timeoutMs: 30_000 }), "SANITIZER_GIT_SPAWN_FAILED");
    const missingRoot = createSandboxedGitRunner({ writableRoots: [join(scratch, "gone")] });
    await expectCode(missingRoot.run({ argv: ["status"], cwd: join(scratch, "gone"), timeoutMs: 30_000 }), "SANITIZER_GIT_SANDBOX_FAILED");
    const badGit = createSandboxedGitRunner({ writableRoots: [scratch], gitPath: "/usr/bin/no-such-git" });
    await expectCode(badGit.run({ argv: ["status"], cwd: repo, timeoutMs: 30_000 }), "SANITIZER_GIT_SANDBOX_FAILED");
  });
});
