// tools/run-evolution.mjs (reference §2.3) as a process: --dry-run prints the `wfbench evolve` command it would run,
// built from the environment knobs, with no credential in it; the weekly workflow example calls only the script.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

function dryRun(args: readonly string[], env: Readonly<Record<string, string>>): { code: number | null; argv: string[]; stderr: string } {
  const result = spawnSync(process.execPath, ["tools/run-evolution.mjs", "--dry-run", ...args], { cwd: REPO_ROOT, encoding: "utf8", env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env } });
  return { code: result.status, argv: result.status === 0 ? (JSON.parse(result.stdout) as string[]) : [], stderr: result.stderr };
}

describe("tools/run-evolution.mjs --dry-run", () => {
  it("builds the review profile with --apply, the CE plugin, expensive tasks, the seed and the CI window cap", () => {
    const secret = "sk-test-never-in-argv";
    const { code, argv, stderr } = dryRun(["--apply", "--", "--timeout", "900"], {
      CE_PLUGIN_DIR: "/plugins/ce",
      CE_PLUGIN_VERSION: "2.3.4",
      INCLUDE_EXPENSIVE: "1",
      SEED_RESULTS: "/seed",
      OUT_ROOT: "/out",
      CI: "true",
      MODEL: "claude-sonnet-4-5",
      WFBENCH_OPENAI_API_KEY: secret,
    });
    expect(code, stderr).toBe(0);
    expect(argv.slice(1, 3)).toEqual(["apps/runner/bin/wfbench.mjs", "evolve"]);
    expect(argv).toEqual(expect.arrayContaining(["--arms", "review", "--ce-plugin-dir", "/plugins/ce", "--ce-plugin-version", "2.3.4", "--apply", "--include-expensive", "--seed-results", "/seed", "--out-root", "/out", "--timeout", "900", "--max-runtime-from-instance-window"]));
    // The default OpenAI route cannot serve a claude-* model: it is rewritten, with a notice.
    expect(argv[argv.indexOf("--model") + 1]).toBe("gpt-5.6-sol");
    expect(stderr).toMatch(/cannot serve MODEL=claude-sonnet-4-5/u);
    expect(argv.join(" ")).not.toContain(secret);
  });

  it("builds the implementation profile without CI extras, and refuses review without a CE plugin", () => {
    const implementation = dryRun([], { EVOLUTION_PROFILE: "implementation", PROVIDER: "anthropic", MODEL: "claude-sonnet-4-5" });
    expect(implementation.code, implementation.stderr).toBe(0);
    expect(implementation.argv).toEqual(expect.arrayContaining(["--tasks", "tasks/demo.yaml", "--model", "claude-sonnet-4-5"]));
    expect(implementation.argv).not.toContain("--max-runtime-from-instance-window");
    const review = dryRun([], {});
    expect(review.code).toBe(2);
    expect(review.stderr).toMatch(/needs CE_PLUGIN_DIR and CE_PLUGIN_VERSION/u);
    const unsafe = dryRun([], { EVOLUTION_PROFILE: "implementation", UNSAFE_NO_BWRAP: "1", CI: "1" });
    expect(unsafe.code).toBe(2);
    expect(unsafe.stderr).toMatch(/refused when CI is set/u);
  });
});

describe("docs/examples/evolve-weekly.yml", () => {
  it("runs the evolution through the script only, with keys from secrets in the environment", () => {
    const workflow = readFileSync(`${REPO_ROOT}/docs/examples/evolve-weekly.yml`, "utf8");
    expect(workflow).toContain("run: node tools/run-evolution.mjs");
    expect(workflow.split("\n").filter((line) => !line.startsWith("#")).join("\n")).not.toMatch(/wfbench(?:\.mjs)? evolve/u);
    expect(workflow).toMatch(/WFBENCH_OPENAI_API_KEY: \$\{\{ secrets\.WFBENCH_OPENAI_API_KEY \}\}/u);
  });
});
