// `wfbench evolve` and the evolve app's own entry (what `nx run evolve:run` runs), as processes: both reach the same
// flag validation and runtime budget, fail before any paid step, and read CI and EVENTBRIDGE_* from their environment;
// both hand whole flags to the loop (the loop itself runs end to end in evolve-loop.int.test.ts).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const WFBENCH = ["apps/runner/bin/wfbench.mjs", "evolve"];
// The command of the evolve:run target (apps/evolve/package.json).
const EVOLVE_APP = ["--conditions=@wfbench/source", "--import", "tsx", "apps/evolve/src/cli.ts"];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(entry: readonly string[], args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", WFBENCH_FROM_SOURCE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const VALID = ["--tasks", "tasks/demo.yaml", "--model", "claude-sonnet-4-5", "--out-root", "/nonexistent/wfevolve-never-written"];

describe.each([
  ["wfbench evolve", WFBENCH],
  ["apps/evolve (evolve:run)", EVOLVE_APP],
])("%s", (_name, entry) => {
  it("prints its usage for --help and exits 0", async () => {
    const result = await run(entry, ["--help"]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toMatch(/^Usage: wfbench evolve --tasks <yaml> --model <id>/u);
  });

  it.each([
    [["--model", "claude-sonnet-4-5"], {}, /--tasks is required/u],
    [["--tasks", "t.yaml", "--model", "claude-latest"], {}, /floats: pass a pinned, versioned model id/u],
    [[...VALID, "--generations", "0"], {}, /--generations 0 is out of range/u],
    [[...VALID, "--arms", "review"], {}, /--arms review needs --ce-plugin-dir/u],
    [[...VALID, "--max-runtime-seconds", "60", "--max-runtime-from-instance-window"], {}, /exclude each other/u],
    // The instance has already lived longer than its window allows: the budget is negative.
    [[...VALID, "--max-runtime-from-instance-window"], { EVENTBRIDGE_INSTANCE_WINDOW_SECONDS: "1", EVENTBRIDGE_STOP_RESERVE_SECONDS: "0" }, /below the 600 s a sweep needs/u],
  ])("%j is refused with exit 2 before any paid step", async (args, env, message) => {
    const result = await run(entry, args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it("refuses the generation-0 proposer when the cap leaves under 600 s, with exit 1", async () => {
    const result = await run(entry, [...VALID, "--max-runtime-seconds", "599"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the generation-0 proposer not started: 5\d\d s of the runtime cap left/u);
  });

  it("takes whole flags into the loop, which refuses a --repo-root that is not a git working tree (exit 2, nothing written)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evolve-cli-"));
    try {
      const result = await run(entry, ["--tasks", "tasks/demo.yaml", "--model", "claude-sonnet-4-5", "--repo-root", dir, "--out-root", join(dir, "out"), "--max-runtime-from-instance-window"], { EVENTBRIDGE_INSTANCE_WINDOW_SECONDS: "100000000" });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/EVOLVE_LOOP_BAD_INPUT: --repo-root \S+ is not a git working tree/u);
      expect(existsSync(join(dir, "out"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
