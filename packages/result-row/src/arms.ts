/** Every arm the original runner knows (reference Appendix B), so a request for one can be told "not yet" instead of "unknown". */
export const KNOWN_ARMS = [
  "workflow",
  "candidate_workflow",
  "workflow_direct",
  "candidate_workflow_direct",
  "candidate_review",
  "ce_workflow",
  "ce_workflow_direct",
  "review",
  "ce_review",
  "baseline",
  "baseline_nomcp",
] as const;
/** An arm the original runner knows; the only arm names a results row may carry. */
export type KnownArm = (typeof KNOWN_ARMS)[number];

/** The arms this project's cell pipeline can run; the other known arms are refused by the caller. */
export const SUPPORTED_ARMS = ["workflow", "candidate_workflow", "workflow_direct", "candidate_workflow_direct", "baseline", "review", "candidate_review", "ce_workflow", "ce_workflow_direct", "ce_review", "baseline_nomcp"] as const satisfies readonly KnownArm[];
/** A supported arm. */
export type Arm = (typeof SUPPORTED_ARMS)[number];
/** An arm that runs with the harness's own (incumbent) skills, or none. */
export type IncumbentArm = "workflow" | "workflow_direct" | "baseline" | "review" | "baseline_nomcp";
/** A candidate arm: its incumbent with the candidate overlay's skill files in the cell. */
export type CandidateArm = "candidate_workflow" | "candidate_workflow_direct" | "candidate_review";

/** A Compound Engineering comparator arm: the GitNexus arm's session shape with the pinned CE plugin's skills. */
export type CeArm = "ce_workflow" | "ce_workflow_direct" | "ce_review";

/** CE arm → the GitNexus arm whose sessions (and checks) it plays with the CE skills (reference Appendix B `CE_ARMS`). */
export const CE_ARMS: Readonly<Record<CeArm, "workflow" | "workflow_direct" | "review">> = {
  ce_workflow: "workflow",
  ce_workflow_direct: "workflow_direct",
  ce_review: "review",
};

/** Candidate arm → the incumbent arm it is paired against (reference Appendix B `CANDIDATE_ARMS`). */
export const CANDIDATE_ARMS: Readonly<Record<CandidateArm, "workflow" | "workflow_direct" | "review">> = {
  candidate_workflow: "workflow",
  candidate_workflow_direct: "workflow_direct",
  candidate_review: "review",
};
/** Candidate arm names in their canonical order. */
export const CANDIDATE_ARM_NAMES: readonly CandidateArm[] = ["candidate_workflow", "candidate_workflow_direct", "candidate_review"];

/**
 * The default arm order: the original runner's `workflow workflow_direct baseline`, plus `review` so a suite that
 * mixes implementation and review tasks runs both kinds without flags (each arm only runs on its kind of task).
 */
export const DEFAULT_ARMS: readonly Arm[] = ["workflow", "workflow_direct", "baseline", "review"];
/** Incumbent arms that run on implementation tasks (Appendix B `IMPLEMENTATION_ARMS`, the supported ones). */
export const IMPLEMENTATION_ARMS: readonly Arm[] = ["workflow", "workflow_direct", "ce_workflow", "ce_workflow_direct", "baseline", "baseline_nomcp"];
/** Incumbent arms that run on review tasks (tasks whose oracle stages `review-labels.json`). */
export const REVIEW_ARMS: readonly Arm[] = ["review", "ce_review"];
/** The arms the host-unsafe backend may run, in the only order it accepts (reference §6.8): nothing that can apply. */
export const HOST_UNSAFE_ARMS: readonly Arm[] = ["ce_review", "review", "candidate_review"];

/** True when `value` names a supported arm; trusts nothing about the value. */
export function isSupportedArm(value: string): value is Arm {
  return (SUPPORTED_ARMS as readonly string[]).includes(value);
}

/** True for the candidate arms (they need a candidate overlay); trusts nothing about the value. */
export function isCandidateArm(arm: string): arm is CandidateArm {
  return Object.hasOwn(CANDIDATE_ARMS, arm);
}

/** True for the CE comparator arms (they need the CE plugin flags); trusts nothing about the value. */
export function isCeArm(arm: string): arm is CeArm {
  return Object.hasOwn(CE_ARMS, arm);
}

/**
 * The arm whose session logic an arm runs: a candidate arm's incumbent, a CE arm's GitNexus counterpart (same sessions
 * and checks, CE skills), any other arm itself.
 */
export function resolveIncumbentArm(arm: Arm): IncumbentArm {
  if (isCandidateArm(arm)) return CANDIDATE_ARMS[arm];
  if (isCeArm(arm)) return CE_ARMS[arm];
  return arm;
}
