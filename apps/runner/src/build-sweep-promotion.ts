import { isCandidateArm, type Arm, type ResultRow } from "@wfbench/cell-pipeline";
import { digestJson, sha256Hex } from "@wfbench/digest";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import {
  aggregateByTaskArm,
  buildCandidatePolicy,
  buildPromotion,
  parseResultRows,
  type CandidatePolicy,
  type ImplementationDecision,
  type Promotion,
  type PromotionMetric,
  type ReviewDecision,
  type TaskBinding,
} from "@wfbench/promotion-gate";
import { digestTaskPrompt, type ResolvedSource, type Task } from "@wfbench/task-suite";
import { RunnerError } from "./errors.js";

/**
 * A selected task's definition binding (reference §3.1, promotion.json `selected_tasks[*]`). This runner refuses
 * sandbox_copy / sandbox_dependencies, so the dependency digests are those of an empty dependency list. Trusts its
 * inputs (already validated).
 */
export function buildTaskBinding(task: Task, source: ResolvedSource, oracle: OracleSnapshot): TaskBinding {
  const binding = oracle.binding;
  return {
    id: task.id,
    class: task.class,
    // A plain-file source is committed into a temporary repository per sweep; its declared directory is the identity.
    repo_identity: source.origin === "git" ? source.repo : task.repo,
    ref: task.ref,
    prompt_digest: digestTaskPrompt(task.prompt),
    setup_digest: sha256Hex(task.setup ?? ""),
    verify_digest: sha256Hex(task.verify),
    expensive: task.expensive,
    sandbox_copy: [...task.sandboxCopy],
    sandbox_dependencies: task.sandboxDependencies.map((dep) => ({ ...dep })),
    sandbox_dependency_content_digest: digestJson([]),
    sandbox_dependency_manifest_digest: digestJson({ dependencies: [], schema_version: 1 }),
    oracle_digest: binding.oracle_digest,
    oracle_command_digest: binding.oracle_command_digest,
    oracle_manifest_digest: binding.oracle_manifest_digest,
    oracle_files: binding.oracle_files.map((file) => ({ ...file })),
    resolved_sha: source.sha,
  };
}

/** What a sweep with candidate arms knows when it ends. */
export interface SweepPromotionInput {
  readonly rows: readonly ResultRow[];
  readonly arms: readonly Arm[];
  readonly thresholds: { readonly metric: PromotionMetric; readonly minRuns: number; readonly minImprovementPct: number; readonly maxTaskRegressionPct: number };
  readonly model: string;
  readonly effort: string;
  readonly overlayPath: string;
  readonly overlayDigest: string;
  readonly targetBaseDigests: Readonly<Record<string, string>>;
  readonly selectedTasks: readonly TaskBinding[];
  readonly complete: boolean;
  readonly now: Date;
}

/**
 * Builds promotion.json (schema 6) from the sweep's own rows through @wfbench/promotion-gate: rows re-parsed with its
 * schema, aggregated per task × arm, one policy per candidate arm in --arms order. Throws RunnerError
 * (RUNNER_PROMOTION_FAILED) when a row of ours does not parse (a harness bug, never averaged away).
 */
export function buildSweepPromotion(input: SweepPromotionInput): Promotion {
  const parsed = parseResultRows(input.rows.map((row) => JSON.parse(JSON.stringify(row)) as unknown));
  if (!parsed.ok) throw new RunnerError("RUNNER_PROMOTION_FAILED", `results row ${parsed.error.index} field ${parsed.error.field}: ${parsed.error.message}`);
  const policy: Record<string, CandidatePolicy> = {};
  for (const arm of input.arms.filter(isCandidateArm)) {
    policy[arm] =
      arm === "candidate_review"
        ? buildCandidatePolicy(arm, { minRuns: input.thresholds.minRuns })
        : buildCandidatePolicy(arm, {
            metric: input.thresholds.metric,
            minRuns: input.thresholds.minRuns,
            minImprovementPct: input.thresholds.minImprovementPct,
            maxTaskRegressionPct: input.thresholds.maxTaskRegressionPct,
          });
  }
  return buildPromotion({
    results: aggregateByTaskArm(parsed.value),
    policy,
    benchmarkModel: input.model,
    proposerModel: null,
    effort: input.effort,
    candidateOverlay: input.overlayPath,
    candidateOverlayDigest: input.overlayDigest,
    targetBaseDigests: input.targetBaseDigests,
    selectedTasks: input.selectedTasks,
    cePlugin: null,
    complete: input.complete,
    now: input.now,
  });
}

/** promotion.json's bytes: reference §4.6 key order (buildPromotion's insertion order), indent 2, trailing newline. */
export function renderPromotionJson(promotion: Promotion): string {
  return `${JSON.stringify(promotion, null, 2)}\n`;
}

function describeDecision(decision: ImplementationDecision | ReviewDecision): string {
  const improvement = "median_improvement_pct" in decision && decision.median_improvement_pct !== null ? `, median ${decision.metric} improvement ${decision.median_improvement_pct}%` : "";
  return `- \`${decision.candidate_arm}\` vs \`${decision.incumbent_arm}\`: **${decision.decision}**${improvement}${decision.reasons.length > 0 ? ` — ${decision.reasons.join("; ")}` : ""}`;
}

/** The `## Promotion` section appended to report.md when candidate arms ran. */
export function renderPromotionSection(promotion: Promotion): string {
  return [
    "## Promotion",
    "",
    `Candidate overlay \`${promotion.candidate_overlay}\` (\`${promotion.candidate_overlay_digest}\`), run status \`${promotion.run_status}\`; decisions written to promotion.json (schema ${promotion.schema_version}).`,
    "",
    ...promotion.decisions.map(describeDecision),
    "",
  ].join("\n");
}
