import { readFile } from "node:fs/promises";
import { buildCandidatePolicy, validatePromotionForApply, type ApplyBindings, type CandidatePolicy, type Promotion, type PromotionMetric } from "@wfbench/promotion-gate";
import type { TaskDefinitionBinding } from "@wfbench/task-suite";
import type { EvolveOptions } from "./parse-evolve-args.js";

/** What one generation's gate said once evolve re-checked it. */
export type GateOutcome =
  | { readonly kind: "promote"; readonly promotion: Promotion; readonly summary: readonly string[] }
  | { readonly kind: "not-promoted"; readonly reason: string; readonly summary: readonly string[] };

/** What evolve itself knows about a generation's sweep, against which its promotion.json is checked. */
export interface GenerationBindings {
  readonly candidateArms: readonly string[];
  readonly overlayDigest: string;
  readonly proposed: boolean;
  readonly selectedTasks: readonly TaskDefinitionBinding[];
  readonly targetBases: Readonly<Record<string, string>>;
}

/**
 * The apply bindings of one generation (reference §5.5): the CLI's models, effort and policy thresholds, and what evolve
 * pinned itself (frozen overlay digest, task bindings, target bases), never anything read back from the sweep.
 */
export function buildApplyBindings(options: EvolveOptions, generation: GenerationBindings): ApplyBindings {
  const policy: Record<string, CandidatePolicy> = {};
  for (const arm of generation.candidateArms) {
    policy[arm] =
      arm === "candidate_review"
        ? buildCandidatePolicy(arm, { minRuns: options.promotion.minRuns })
        : buildCandidatePolicy(arm, { metric: options.promotion.metric as PromotionMetric, minRuns: options.promotion.minRuns, minImprovementPct: options.promotion.minImprovementPct, maxTaskRegressionPct: options.promotion.maxTaskRegressionPct });
  }
  return {
    benchmark_model: options.model,
    proposer_model: generation.proposed ? options.proposerModel : null,
    effort: options.effort,
    candidate_origin: generation.proposed ? "model-proposer" : "manual-initial-overlay",
    candidate_overlay_digest: generation.overlayDigest,
    required_candidate_arms: [...generation.candidateArms],
    selected_tasks: generation.selectedTasks.map((binding) => ({ ...binding })),
    target_base_digests: { ...generation.targetBases },
    policy,
  };
}

function summarize(document: unknown): string[] {
  const decisions = (document as { decisions?: unknown } | null)?.decisions;
  if (!Array.isArray(decisions)) return [];
  return decisions.map((decision: unknown) => {
    const d = (decision ?? {}) as { candidate_arm?: unknown; decision?: unknown; reasons?: unknown };
    const reasons = Array.isArray(d.reasons) ? d.reasons.filter((r): r is string => typeof r === "string") : [];
    return `${String(d.candidate_arm)}: ${String(d.decision)}${reasons.length === 0 ? "" : ` (${reasons.join("; ")})`}`;
  });
}

/**
 * Reads a generation's promotion.json and lets promotion-gate's apply-time validation decide (full recompute against
 * `bindings` and `now`). Anything but a validated `promote` — keep_incumbent, insufficient_evidence, an unreadable
 * file or any refusal — is "not-promoted" with the reason; the per-arm summary is read from the document as written.
 */
export async function readGateOutcome(promotionPath: string, bindings: ApplyBindings, now: Date): Promise<GateOutcome> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(promotionPath, "utf8"));
  } catch (error) {
    return { kind: "not-promoted", reason: `${promotionPath} is unreadable (${(error as Error).message})`, summary: [] };
  }
  const summary = summarize(document);
  const checked = validatePromotionForApply(document, bindings, now);
  if (checked.ok) return { kind: "promote", promotion: checked.value.promotion, summary };
  return { kind: "not-promoted", reason: `${checked.error.field}: ${checked.error.message}`, summary };
}
