import { AggregateInvariantError, aggregateByTaskArm, buildCandidatePolicy, buildPromotion, type CandidatePolicy, type Promotion, type PromotionMetric, type TaskBinding } from "@wfbench/promotion-gate";
import { isCandidateArm, type Arm, type ResultRow } from "@wfbench/result-row";
import { SweepError } from "./errors.js";

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
  /** The CE plugin provenance (plugin-snapshot) when a CE arm ran, else null (promotion.json `ce_plugin`). */
  readonly cePlugin?: Readonly<Record<string, unknown>> | null;
  /** The sweep's `--proposer-model` (provenance): set → candidate_origin "model-proposer", null → "manual-initial-overlay". */
  readonly proposerModel?: string | null;
}

/**
 * Builds promotion.json (schema 6) from the sweep's own rows through @wfbench/promotion-gate: the rows (built through
 * the row contract, so already checked) aggregated per task × arm, one policy per candidate arm in --arms order.
 * Throws SweepError (SWEEP_PROMOTION_FAILED) when the gate refuses an aggregate of ours (a harness bug, never
 * averaged away).
 */
export function buildSweepPromotion(input: SweepPromotionInput): Promotion {
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
  try {
    return promote(input, policy);
  } catch (error) {
    if (error instanceof AggregateInvariantError) throw new SweepError("SWEEP_PROMOTION_FAILED", error.message, { cause: error });
    throw error;
  }
}

function promote(input: SweepPromotionInput, policy: Record<string, CandidatePolicy>): Promotion {
  return buildPromotion({
    results: aggregateByTaskArm(input.rows),
    policy,
    benchmarkModel: input.model,
    proposerModel: input.proposerModel ?? null,
    effort: input.effort,
    candidateOverlay: input.overlayPath,
    candidateOverlayDigest: input.overlayDigest,
    targetBaseDigests: input.targetBaseDigests,
    selectedTasks: input.selectedTasks,
    cePlugin: input.cePlugin ?? null,
    complete: input.complete,
    now: input.now,
  });
}
