import type { EvolveOptions } from "./parse-evolve-args.js";

/** Runner flags another branch adds (hReuse); evolve passes them only when the runner in this build accepts them. */
export interface RunnerFlagSupport {
  /** `wfbench run --task-bindings-json PATH` and `--promotion-target-bases-json PATH`. */
  readonly taskBindingsJson: boolean;
  /** `wfbench run --reuse-results DIR`. */
  readonly reuseResults: boolean;
}

/** What this build's runner accepts. Switch each to true once the runner parses the flag (reference §2.1). */
export const RUNNER_FLAG_SUPPORT: RunnerFlagSupport = { taskBindingsJson: true, reuseResults: true };

/** One generation's sweep inputs: the frozen overlay, where the sweep writes, and the files resolved once. */
export interface GenerationSweepInputs {
  readonly frozenOverlay: string;
  readonly benchOut: string;
  /** The incumbent arms the frozen overlay needs (workflow, workflow_direct, review). */
  readonly incumbentArms: readonly string[];
  /** The JSON file of the task bindings resolved once before generation 0. */
  readonly taskBindingsJson: string;
  /** The JSON file of the committed base digests of the overlay's destinations. */
  readonly targetBasesJson: string;
  /** The evidence directory reused as comparator results, or null. */
  readonly reuseResults: string | null;
  /** False for a manual generation-0 overlay: it has no proposer model. */
  readonly proposed: boolean;
  /** The sweep's timeout per session, already clamped to the runtime budget. */
  readonly sessionTimeoutS: number;
}

/** The arms a generation's sweep runs: [incumbent, candidate_<incumbent>] each, ce_review first when review is there. */
export function executedBenchmarkArms(incumbentArms: readonly string[]): string[] {
  const arms = incumbentArms.flatMap((arm) => [arm, `candidate_${arm}`]);
  return incumbentArms.includes("review") ? ["ce_review", ...arms] : arms;
}

/**
 * The `wfbench run` argv (after the command) of one generation's sweep (reference §9.1 step 10). Trusts `options`
 * to be parsed; never carries a credential (those go in the child's environment). Flags the runner does not accept
 * yet (`support`) are left out rather than sent to a runner that would refuse them.
 */
export function buildRunnerArgv(options: EvolveOptions, inputs: GenerationSweepInputs, support: RunnerFlagSupport = RUNNER_FLAG_SUPPORT): string[] {
  const argv = [
    "--tasks", options.tasks,
    "--repeats", String(options.runs),
    "--workers", String(options.workers),
    "--model", options.model,
    "--effort", options.effort,
    "--timeout", String(inputs.sessionTimeoutS),
    "--out", inputs.benchOut,
    "--candidate-overlay", inputs.frozenOverlay,
    "--promotion-metric", options.promotion.metric,
    "--promotion-min-runs", String(options.promotion.minRuns),
    "--promotion-min-improvement", String(options.promotion.minImprovementPct),
    "--promotion-max-task-regression", String(options.promotion.maxTaskRegressionPct),
  ];
  // A review overlay's arms are left to the sweep: it derives them from the overlay and puts ce_review first when the
  // CE plugin is given (an explicit --arms must equal the overlay's pairs exactly, which ce_review would break).
  const review = inputs.incumbentArms.includes("review");
  if (!review) argv.splice(argv.indexOf("--promotion-metric"), 0, "--arms", ...executedBenchmarkArms(inputs.incumbentArms));
  if (options.claudeBin !== null) argv.push("--claude-bin", options.claudeBin);
  if (support.taskBindingsJson) argv.push("--task-bindings-json", inputs.taskBindingsJson, "--promotion-target-bases-json", inputs.targetBasesJson);
  if (inputs.proposed) argv.push("--proposer-model", options.proposerModel);
  if (options.baseUrl !== null) argv.push("--base-url", options.baseUrl);
  if (options.includeExpensive) argv.push("--include-expensive");
  if (review && options.cePluginDir !== null && options.cePluginVersion !== null) argv.push("--ce-plugin-dir", options.cePluginDir, "--ce-plugin-version", options.cePluginVersion);
  if (options.unsafeNoBwrap) argv.push("--unsafe-no-bwrap");
  if (support.reuseResults && inputs.reuseResults !== null) argv.push("--reuse-results", inputs.reuseResults);
  return argv;
}
