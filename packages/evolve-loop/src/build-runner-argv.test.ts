import { describe, expect, it } from "vitest";
import { buildRunnerArgv, executedBenchmarkArms, RUNNER_FLAG_SUPPORT, type GenerationSweepInputs } from "./build-runner-argv.js";
import { parseEvolveArgs, type EvolveOptions } from "./parse-evolve-args.js";

function parsed(argv: readonly string[]): EvolveOptions {
  const result = parseEvolveArgs(argv, { cwd: "/repo", now: new Date(0), ci: false, uptimeText: null });
  if (!result.ok || result.help) throw new Error("bad fixture argv");
  return result.options;
}

const INPUTS: GenerationSweepInputs = {
  frozenOverlay: "/out/gen-0/frozen-overlay",
  benchOut: "/out/gen-0/bench",
  incumbentArms: ["workflow"],
  taskBindingsJson: "/out/task-bindings.json",
  targetBasesJson: "/out/gen-0/target-bases.json",
  reuseResults: "/seed",
  proposed: true,
  sessionTimeoutS: 1200,
};

describe("executedBenchmarkArms", () => {
  it("pairs every incumbent with its candidate and puts ce_review first for review", () => {
    expect(executedBenchmarkArms(["workflow", "workflow_direct"])).toEqual(["workflow", "candidate_workflow", "workflow_direct", "candidate_workflow_direct"]);
    expect(executedBenchmarkArms(["review"])).toEqual(["ce_review", "review", "candidate_review"]);
  });
});

describe("buildRunnerArgv", () => {
  const options = parsed(["--tasks", "s.yaml", "--model", "claude-sonnet-4-5", "--proposer-model", "claude-opus-4-1", "--runs", "4", "--anthropic-api-key", "sk-ant-secret", "--auth-token", "tok-secret"]);

  it("builds the sweep argv with the clamped timeout, the paired arms and the gate policy, and no credential", () => {
    const argv = buildRunnerArgv(options, INPUTS, { taskBindingsJson: false, reuseResults: false });
    expect(argv).toEqual([
      "--tasks", "/repo/s.yaml", "--repeats", "4", "--workers", "1", "--model", "claude-sonnet-4-5", "--effort", "xhigh",
      "--timeout", "1200", "--out", "/out/gen-0/bench", "--candidate-overlay", "/out/gen-0/frozen-overlay",
      "--arms", "workflow", "candidate_workflow",
      "--promotion-metric", "cost_usd", "--promotion-min-runs", "3", "--promotion-min-improvement", "5", "--promotion-max-task-regression", "20",
      "--proposer-model", "claude-opus-4-1",
    ]);
    expect(argv.join(" ")).not.toMatch(/secret/u);
  });

  it("passes the bindings, target bases and reuse source, which the runner accepts", () => {
    expect(RUNNER_FLAG_SUPPORT).toEqual({ taskBindingsJson: true, reuseResults: true });
    const argv = buildRunnerArgv(options, INPUTS);
    expect(argv).toEqual(expect.arrayContaining(["--task-bindings-json", "/out/task-bindings.json", "--promotion-target-bases-json", "/out/gen-0/target-bases.json", "--reuse-results", "/seed"]));
  });

  it("leaves a review overlay's arms to the sweep and passes the CE plugin only for review", () => {
    const plugin = parsed(["--tasks", "s.yaml", "--model", "claude-sonnet-4-5", "--arms", "review", "--ce-plugin-dir", "/", "--ce-plugin-version", "1.2.3"]);
    const review = buildRunnerArgv(plugin, { ...INPUTS, incumbentArms: ["review"] });
    expect(review).not.toContain("--arms");
    expect(review).toEqual(expect.arrayContaining(["--ce-plugin-dir", "/", "--ce-plugin-version", "1.2.3"]));
    expect(buildRunnerArgv(plugin, INPUTS)).not.toContain("--ce-plugin-dir");
  });

  it("omits --proposer-model for a manual initial overlay", () => {
    expect(buildRunnerArgv(options, { ...INPUTS, proposed: false })).not.toContain("--proposer-model");
  });
});
