import { canonicalJson } from "@wfbench/digest";
import { EVIDENCE_MAX_AGE_DAYS } from "./constants.js";
import { buildPromotionEvidence } from "./build-promotion-evidence.js";
import type { AggregatedResults, CandidatePolicy, Promotion, TaskBinding } from "./schema.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Everything a schema-6 promotion.json records besides the decisions it computes. */
export interface BuildPromotionInput {
  readonly results: AggregatedResults;
  /** Candidate arm → policy, in --arms order; its keys become required_candidate_arms. */
  readonly policy: Readonly<Record<string, CandidatePolicy>>;
  readonly benchmarkModel: string;
  readonly proposerModel: string | null;
  readonly effort: string | null;
  readonly candidateOverlay: string;
  readonly candidateOverlayDigest: string;
  readonly targetBaseDigests: Readonly<Record<string, string>>;
  readonly selectedTasks: readonly TaskBinding[];
  readonly cePlugin: Readonly<Record<string, unknown>> | null;
  /** False when the sweep aborted (outage) or was cancelled. */
  readonly complete: boolean;
  /** The generation time; the package never reads a clock. */
  readonly now: Date;
}

/**
 * Builds promotion.json schema 6 (reference §4.6) with a 90-day expiry and forced insufficient_evidence for an
 * aborted sweep; trusts its inputs (the caller validated bindings), refuses nothing.
 */
export function buildPromotion(input: BuildPromotionInput): Promotion {
  const evidence = buildPromotionEvidence({
    results: input.results,
    policy: input.policy,
    model: input.benchmarkModel,
    complete: input.complete,
  });
  return {
    generated_at: input.now.toISOString(),
    evidence_expires_at: new Date(input.now.getTime() + EVIDENCE_MAX_AGE_DAYS * DAY_MS).toISOString(),
    benchmark_model: input.benchmarkModel,
    proposer_model: input.proposerModel,
    effort: input.effort,
    candidate_origin: input.proposerModel !== null && input.proposerModel !== "" ? "model-proposer" : "manual-initial-overlay",
    candidate_overlay: input.candidateOverlay,
    candidate_overlay_digest: input.candidateOverlayDigest,
    target_base_digests: { ...input.targetBaseDigests },
    required_candidate_arms: Object.keys(input.policy),
    selected_tasks: [...input.selectedTasks],
    ce_plugin: input.cePlugin === null ? null : { ...input.cePlugin },
    ...evidence,
  };
}

/** Canonical JSON of any promotion value (sorted keys, no whitespace), the form every digest and comparison uses. */
export function serializePromotion(promotion: unknown): string {
  return canonicalJson(promotion);
}

/**
 * promotion.json's bytes as written next to the report: reference §4.6 key order (buildPromotion's insertion order),
 * indent 2, trailing newline. Trusts a promotion from buildPromotion.
 */
export function formatPromotionFile(promotion: Promotion): string {
  return `${JSON.stringify(promotion, null, 2)}\n`;
}
