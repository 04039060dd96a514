import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { hardenGitArgv, HARDENED_GIT_CONFIG } from "../src/harden-git.js";
import { createHostGitRunner } from "../src/host-git-runner.js";
import { hasGit, makeScratch } from "./helpers/git-fixture.js";

const required = process.env.CI === "true";

describe.skipIf(!hasGit() && !required)("createHostGitRunner", () => {
  const runner = createHostGitRunner();
  const cwd = makeScratch();
  afterAll(() => {
    runner.dispose();
    spawnSync("rm", ["-rf", cwd]);
  });

  it("builds the environment from scratch with an empty private HOME", async () => {
    process.env["WFBENCH_LEAK_PROBE"] = "leaked";
    try {
      const out = await runner.run({ argv: ["-c", "alias.e=!env", "e"], cwd, timeoutMs: 10_000 });
      const env = Object.fromEntries(out.stdout.split("\n").filter(Boolean).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      expect(env["WFBENCH_LEAK_PROBE"]).toBeUndefined();
      expect(env["GIT_CONFIG_NOSYSTEM"]).toBe("1");
      expect(env["GIT_CONFIG_GLOBAL"]).toBe("/dev/null");
      expect(env["GIT_TERMINAL_PROMPT"]).toBe("0");
      expect(env["GIT_OPTIONAL_LOCKS"]).toBe("0");
      expect(env["HOME"]).toMatch(/wfbench-git-home-/);
      expect(readdirSync(env["HOME"] ?? "/nonexistent")).toEqual([]);
    } finally {
      delete process.env["WFBENCH_LEAK_PROBE"];
    }
  });

  it("does not let caller env override the hardening keys", async () => {
    const out = await runner.run({
      argv: ["-c", "alias.e=!env", "e"],
      cwd,
      timeoutMs: 10_000,
      env: { GIT_CONFIG_NOSYSTEM: "0", HOME: "/root", EXTRA: "yes" },
    });
    expect(out.stdout).toContain("GIT_CONFIG_NOSYSTEM=1");
    expect(out.stdout).not.toContain("HOME=/root");
    expect(out.stdout).toContain("EXTRA=yes");
  });

  it("kills the whole process group on timeout", async () => {
    const started = Date.now();
    const marker = `wfbench-sleep-${process.pid}-${started}`;
    await expect(
      runner.run({ argv: ["-c", `alias.s=!sh -c 'sleep 30; echo ${marker}'`, "s"], cwd, timeoutMs: 300 }),
    ).rejects.toMatchObject({ code: "SANITIZER_GIT_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(spawnSync("pgrep", ["-f", marker]).status).toBe(1);
  });

  it("fails on output past the limit instead of truncating", async () => {
    await expect(
      runner.run({ argv: ["-c", "alias.y=!yes", "y"], cwd, timeoutMs: 10_000, maxOutputBytes: 4096 }),
    ).rejects.toMatchObject({ code: "SANITIZER_GIT_OUTPUT_LIMIT" });
  });

  it("reports a missing git binary as a spawn failure and returns nonzero exits as data", async () => {
    const missing = createHostGitRunner({ gitPath: "/nonexistent/git", homeDir: cwd });
    await expect(missing.run({ argv: ["--version"], cwd, timeoutMs: 1_000 })).rejects.toMatchObject({
      code: "SANITIZER_GIT_SPAWN_FAILED",
    });
    const outcome = await runner.run({ argv: ["rev-parse", "HEAD"], cwd, timeoutMs: 10_000 });
    expect(outcome.exitCode).toBe(128);
  });

  it("puts every hardening override before the subcommand", () => {
    const argv = hardenGitArgv(["status"]);
    expect(argv.at(-1)).toBe("status");
    expect(argv.filter((a) => a === "-c")).toHaveLength(HARDENED_GIT_CONFIG.length);
    expect(argv).toContain("core.hooksPath=/dev/null");
    expect(argv).toContain("core.fsmonitor=false");
    expect(argv).toContain("protocol.file.allow=always");
  });
});
