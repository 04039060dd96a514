import type { AggregatedResults, ApplyBindings, BuildPromotionInput, CandidatePolicy, TaskBinding } from "../../src/index.js";
import { buildCandidatePolicy, buildPromotion } from "../../src/index.js";
import { makeAggregate, makeReviewAggregate } from "./aggregates.js";

const hex = (char: string): string => char.repeat(64);

/** A task binding with every digest §5.5 step 2 requires. */
export function makeTaskBinding(id: string): TaskBinding {
  return {
    id,
    class: "trivial",
    repo_identity: "/repo",
    ref: "HEAD",
    prompt_digest: hex("1"),
    oracle_digest: hex("a"),
    oracle_command_digest: hex("b"),
    oracle_manifest_digest: hex("c"),
    sandbox_dependency_content_digest: hex("d"),
    sandbox_dependency_manifest_digest: hex("e"),
    oracle_files: [{ target: "x.test.ts", sha256: hex("f"), size: 10 }],
    resolved_sha: "0".repeat(40),
  };
}

/** Evidence on which both candidate_workflow (11% cheaper) and candidate_review (+0.1 weighted F1) promote. */
export function makePromotableResults(): AggregatedResults {
  return {
    "task-a": {
      workflow: makeAggregate({ cost_usd: 1.0 }),
      candidate_workflow: makeAggregate({ cost_usd: 0.89 }),
      review: makeReviewAggregate({ review_weighted_f1: 0.4 }),
      candidate_review: makeReviewAggregate({ review_weighted_f1: 0.5 }),
    },
    "task-b": {
      workflow: makeAggregate({ cost_usd: 2.0 }),
      candidate_workflow: makeAggregate({ cost_usd: 1.6 }),
      review: makeReviewAggregate({ review_weighted_f1: 0.5 }),
      candidate_review: makeReviewAggregate({ review_weighted_f1: 0.5 }),
    },
  };
}

export const GENERATED_AT = new Date("2026-07-25T12:00:00.000Z");

/** Inputs of buildPromotion for the promotable evidence. */
export function makePromotionInput(overrides: Partial<BuildPromotionInput> = {}): BuildPromotionInput {
  const policy: Record<string, CandidatePolicy> = {
    candidate_workflow: buildCandidatePolicy("candidate_workflow"),
    candidate_review: buildCandidatePolicy("candidate_review"),
  };
  return {
    results: makePromotableResults(),
    policy,
    benchmarkModel: "claude-test-1",
    proposerModel: "claude-proposer-1",
    effort: "high",
    candidateOverlay: "/tmp/frozen-overlay",
    candidateOverlayDigest: hex("9"),
    targetBaseDigests: { ".claude/skills/gitnexus-work/SKILL.md": hex("8") },
    selectedTasks: [makeTaskBinding("task-a"), makeTaskBinding("task-b")],
    cePlugin: null,
    complete: true,
    now: GENERATED_AT,
    ...overrides,
  };
}

/** Bindings that match makePromotionInput exactly. */
export function makeBindings(input: BuildPromotionInput = makePromotionInput()): ApplyBindings {
  return {
    benchmark_model: input.benchmarkModel,
    proposer_model: input.proposerModel,
    effort: input.effort,
    candidate_origin: input.proposerModel ? "model-proposer" : "manual-initial-overlay",
    candidate_overlay_digest: input.candidateOverlayDigest,
    required_candidate_arms: Object.keys(input.policy),
    selected_tasks: input.selectedTasks.map((task) => ({ ...task })),
    target_base_digests: { ...input.targetBaseDigests },
    policy: { ...input.policy },
  };
}

/** A promotion.json as read back from disk (a plain JSON value). */
export function makePromotionJson(input: BuildPromotionInput = makePromotionInput()): Record<string, unknown> {
  return JSON.parse(JSON.stringify(buildPromotion(input))) as Record<string, unknown>;
}
