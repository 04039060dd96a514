import { canonicalJson, compareCodePoints } from "@wfbench/digest";
import { ROOT_FIELD, formatIssuePath } from "@wfbench/pycompat";
import { CANDIDATE_ARMS, CANDIDATE_ARM_NAMES, type CandidateArm } from "@wfbench/result-row";
import type { z } from "zod";
import { buildPromotionEvidence } from "./build-promotion-evidence.js";
import { checkAggregate } from "./check-aggregate.js";
import { EVIDENCE_MAX_AGE_DAYS, MAX_FUTURE_SKEW_MS, PROMOTION_SCHEMA_VERSION } from "./constants.js";
import type { Result } from "./result.js";
import {
  AggregateSchema,
  ApplyBindingsSchema,
  CandidatePolicySchema,
  ImplementationDecisionSchema,
  PromotionSchema,
  ReviewDecisionSchema,
  TaskBindingSchema,
  type Aggregate,
  type ApplyBindings,
  type CandidatePolicy,
  type Promotion,
} from "./schema.js";

/** Why a promotion may not be applied: the offending field (a JSON path) and a message naming what was expected. */
export interface ApplyRefusal {
  readonly field: string;
  readonly message: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO-8601 timestamp that carries a timezone; null for anything else (naive times are refused). */
function parseZonedTimestamp(text: string): number | null {
  const match = TIMESTAMP.exec(text);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const millis = Number(((fraction ?? "") + "000").slice(0, 3));
  let epoch = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis);
  const check = new Date(epoch);
  // Date.UTC rolls out-of-range fields over (11:60 → 12:00); a malformed timestamp must be refused, never reinterpreted.
  if (check.getUTCDate() !== Number(day) || check.getUTCMonth() !== Number(month) - 1) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (zone !== "Z" && zone !== undefined) {
    const sign = zone.startsWith("-") ? -1 : 1;
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMinutesPart = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMinutesPart > 59) return null;
    const offsetMinutes = offsetHours * 60 + offsetMinutesPart;
    epoch -= sign * offsetMinutes * 60_000;
  }
  return epoch;
}

function refuse(field: string, message: string): { ok: false; error: ApplyRefusal } {
  return { ok: false, error: { field, message } };
}

function refuseIssues(prefix: string, error: z.ZodError): { ok: false; error: ApplyRefusal } {
  const issue = error.issues[0];
  if (issue === undefined) return refuse(prefix, "invalid");
  return refuse(formatIssuePath(issue.path, prefix), issue.message);
}

function sameCanonical(left: unknown, right: unknown): boolean {
  return canonicalJson(left) === canonicalJson(right);
}

function isNonNegativeInt(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isFiniteNonNegative(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** The structural rules of §5.5 step 6 for one side of a task row, plus the §5.2 invariants of any aggregate. */
function checkSide(field: string, side: Aggregate, review: boolean, metric: string): ApplyRefusal | null {
  for (const key of ["runs", "valid_runs", "excluded_runs", "resolved"] as const) {
    if (!isNonNegativeInt(side[key])) return { field: `${field}.${key}`, message: "must be a non-negative integer" };
  }
  // Every §5.2 invariant (runs = valid + excluded, resolved ≤ valid, counts within runs, error kinds counted ≥ 1, …).
  const broken = checkAggregate(side);
  if (broken !== null) return { field: `${field}.${broken.field}`, message: broken.message };
  if (review) {
    for (const key of ["review_verdict_correct", "review_clean_control", "review_clean_pass"] as const) {
      if (typeof side[key] !== "boolean") return { field: `${field}.${key}`, message: "must be a boolean" };
    }
    const f1 = side.review_weighted_f1 ?? null;
    if (f1 === null ? side.review_clean_control !== true : !(isFiniteNonNegative(f1) && f1 <= 1)) {
      return { field: `${field}.review_weighted_f1`, message: "must be a finite number in [0, 1] (null only on a clean control)" };
    }
    const blocker = side.review_blocker_recall ?? null;
    if (blocker !== null && !(isFiniteNonNegative(blocker) && blocker <= 1)) {
      return { field: `${field}.review_blocker_recall`, message: "must be null or a finite number in [0, 1]" };
    }
    if (!isFiniteNonNegative(side.review_false_positives)) {
      return { field: `${field}.review_false_positives`, message: "must be a finite non-negative number" };
    }
  } else {
    const value: unknown = (side as Record<string, unknown>)[metric];
    if (value !== null && !isFiniteNonNegative(value)) return { field: `${field}.${metric}`, message: "must be null or a finite non-negative number" };
    for (const [kind, total] of Object.entries(side.error_kinds)) {
      if (!isNonNegativeInt(total)) return { field: `${field}.error_kinds.${kind}`, message: "must be a non-negative integer" };
    }
  }
  return null;
}

/** A promotion that passed every apply-time check, with the parsed document. */
export interface ValidatedPromotion {
  readonly promotion: Promotion;
}

/**
 * Apply-time validation (reference §5.5): every structural, binding, time and evidence check, then recomputes each
 * decision from the embedded evidence and requires exact equality and `promote`. Trusts only `bindings` and `now`;
 * never trusts the document's own decisions, schema number or timestamps. Refusals name the field.
 */
export function validatePromotionForApply(promotionInput: unknown, bindingsInput: ApplyBindings, now: Date): Result<ValidatedPromotion, ApplyRefusal> {
  const bindingsParsed = ApplyBindingsSchema.safeParse(bindingsInput);
  if (!bindingsParsed.success) return refuseIssues("bindings", bindingsParsed.error);
  const bindings = bindingsParsed.data;

  if (typeof promotionInput !== "object" || promotionInput === null || Array.isArray(promotionInput)) {
    return refuse(ROOT_FIELD, "promotion must be a JSON object");
  }
  const raw = promotionInput as Record<string, unknown>;
  // Step 1 first, on the raw document, so an old schema gets the actionable message rather than a shape error.
  if (raw["schema_version"] !== PROMOTION_SCHEMA_VERSION) {
    return refuse("schema_version", `must be ${PROMOTION_SCHEMA_VERSION}; regenerate evidence with the current runner`);
  }
  if (raw["run_status"] !== "complete") return refuse("run_status", 'must be "complete"; partial evidence cannot promote');
  const arms = raw["required_candidate_arms"];
  if (!Array.isArray(arms) || arms.length === 0) return refuse("required_candidate_arms", "must be a non-empty list");
  if (new Set(arms).size !== arms.length) return refuse("required_candidate_arms", "must not repeat an arm");
  for (const [index, arm] of arms.entries()) {
    if (typeof arm !== "string" || !(CANDIDATE_ARM_NAMES as readonly string[]).includes(arm)) {
      return refuse(`required_candidate_arms[${index}]`, `must be one of ${CANDIDATE_ARM_NAMES.join(", ")}`);
    }
  }

  // Step 2: task bindings.
  const tasks = raw["selected_tasks"];
  if (!Array.isArray(tasks) || tasks.length === 0) return refuse("selected_tasks", "must be a non-empty list");
  const taskIds = new Set<string>();
  for (const [index, task] of tasks.entries()) {
    const parsedTask = TaskBindingSchema.safeParse(task);
    if (!parsedTask.success) return refuseIssues(`selected_tasks[${index}]`, parsedTask.error);
    if (taskIds.has(parsedTask.data.id)) return refuse(`selected_tasks[${index}].id`, `repeats task ${JSON.stringify(parsedTask.data.id)}`);
    taskIds.add(parsedTask.data.id);
  }

  // Each decision is checked against its own kind first, so a refusal names the field rather than the union.
  const rawDecisions = raw["decisions"];
  if (Array.isArray(rawDecisions)) {
    for (const [index, decision] of rawDecisions.entries()) {
      const isReview = typeof decision === "object" && decision !== null && (decision as Record<string, unknown>)["candidate_arm"] === "candidate_review";
      const checked = (isReview ? ReviewDecisionSchema : ImplementationDecisionSchema).safeParse(decision);
      if (!checked.success) return refuseIssues(`decisions[${index}]`, checked.error);
    }
  }
  const parsed = PromotionSchema.safeParse(promotionInput);
  if (!parsed.success) return refuseIssues("", parsed.error);
  const promotion = parsed.data;

  // Step 3: exact bindings.
  const exact: ReadonlyArray<readonly [keyof Promotion & keyof ApplyBindings, unknown, unknown]> = [
    ["benchmark_model", promotion.benchmark_model, bindings.benchmark_model],
    ["proposer_model", promotion.proposer_model, bindings.proposer_model],
    ["effort", promotion.effort, bindings.effort],
    ["candidate_origin", promotion.candidate_origin, bindings.candidate_origin],
    ["candidate_overlay_digest", promotion.candidate_overlay_digest, bindings.candidate_overlay_digest],
    ["required_candidate_arms", promotion.required_candidate_arms, bindings.required_candidate_arms],
    ["selected_tasks", (raw["selected_tasks"] as unknown[]), bindings.selected_tasks],
    ["target_base_digests", promotion.target_base_digests, bindings.target_base_digests],
  ];
  for (const [field, stored, expected] of exact) {
    // Arrays keep their order in canonical JSON, so this is exact equality, not set equality.
    if (!sameCanonical(stored, expected)) return refuse(field, "does not match the expected binding");
  }
  if (!sameCanonical(promotion.policy, bindings.policy)) return refuse("policy", "does not match the policy rebuilt from the expected thresholds");
  if (!sameCanonical(Object.keys(promotion.policy).sort(compareCodePoints), [...promotion.required_candidate_arms].sort(compareCodePoints))) {
    return refuse("policy", "keys must equal required_candidate_arms");
  }

  // Step 4: timestamps.
  const generated = parseZonedTimestamp(promotion.generated_at);
  if (generated === null) return refuse("generated_at", "must be an ISO-8601 timestamp with a timezone");
  const expires = parseZonedTimestamp(promotion.evidence_expires_at);
  if (expires === null) return refuse("evidence_expires_at", "must be an ISO-8601 timestamp with a timezone");
  const nowMs = now.getTime();
  if (generated > nowMs + MAX_FUTURE_SKEW_MS) return refuse("generated_at", "lies more than 5 minutes in the future");
  if (!(expires > generated)) return refuse("evidence_expires_at", "must be after generated_at");
  if (expires - generated > EVIDENCE_MAX_AGE_DAYS * DAY_MS) return refuse("evidence_expires_at", `must be at most ${EVIDENCE_MAX_AGE_DAYS} days after generated_at`);
  if (nowMs > expires) return refuse("evidence_expires_at", "evidence has expired; rerun the benchmark");

  // Step 5: decisions.
  const decisions = promotion.decisions;
  const decisionArms = decisions.map((decision) => decision.candidate_arm);
  for (const [index, arm] of decisionArms.entries()) {
    if (!promotion.required_candidate_arms.includes(arm)) return refuse(`decisions[${index}].candidate_arm`, `${JSON.stringify(arm)} is not a required arm`);
    if (decisionArms.indexOf(arm) !== index) return refuse(`decisions[${index}].candidate_arm`, `repeats ${JSON.stringify(arm)}`);
  }
  if (!sameCanonical(decisionArms, promotion.required_candidate_arms)) return refuse("decisions", "must hold one decision per required arm, in order");
  for (const [index, decision] of decisions.entries()) {
    const arm = decision.candidate_arm as CandidateArm;
    const policy = promotion.policy[arm] as CandidatePolicy;
    if (decision.incumbent_arm !== CANDIDATE_ARMS[arm]) return refuse(`decisions[${index}].incumbent_arm`, `must be ${CANDIDATE_ARMS[arm]}`);
    if (decision.decision !== "promote") return refuse(`decisions[${index}].decision`, `is ${decision.decision}, not promote`);
    if (decision.metric !== policy.metric) return refuse(`decisions[${index}].metric`, `must equal the policy metric ${policy.metric}`);
  }

  // Step 6: per-task evidence.
  const rebuilt: Record<string, Record<string, Aggregate>> = {};
  for (const [index, decision] of decisions.entries()) {
    const field = `decisions[${index}]`;
    const review = decision.candidate_arm === "candidate_review";
    const rows = decision.tasks;
    const seen = new Set<string>();
    for (const [rowIndex, row] of rows.entries()) {
      if (seen.has(row.task)) return refuse(`${field}.tasks[${rowIndex}].task`, `repeats ${JSON.stringify(row.task)}`);
      seen.add(row.task);
    }
    if (!sameCanonical([...seen].sort(compareCodePoints), [...taskIds].sort(compareCodePoints))) {
      return refuse(`${field}.tasks`, "task set must equal the selected task ids");
    }
    const ungated = rows.filter((row) => !row.gated).map((row) => row.task);
    if (!sameCanonical(decision.ungated_tasks, ungated)) return refuse(`${field}.ungated_tasks`, "must list exactly the rows with gated=false");
    const gatedCount = rows.length - ungated.length;
    if (gatedCount === 0) return refuse(`${field}.tasks`, "needs at least one gated task");
    if (gatedCount < 0.5 * rows.length) return refuse(`${field}.tasks`, "at least half of the tasks must be gated");
    if (review && ungated.length > 0) return refuse(`${field}.ungated_tasks`, "candidate_review may not ungate a task");
    const metric = (promotion.policy[decision.candidate_arm] as CandidatePolicy).metric;
    for (const [rowIndex, row] of rows.entries()) {
      const rowField = `${field}.tasks[${rowIndex}]`;
      for (const sideName of ["incumbent", "candidate"] as const) {
        const side = AggregateSchema.safeParse(row[sideName]);
        if (!side.success) return refuseIssues(`${rowField}.${sideName}`, side.error);
        const problem = checkSide(`${rowField}.${sideName}`, side.data, review, metric);
        if (problem !== null) return { ok: false, error: problem };
      }
      if (review && row.incumbent.review_clean_control !== row.candidate.review_clean_control) {
        return refuse(`${rowField}.candidate.review_clean_control`, "must equal the incumbent's clean-control flag");
      }
      const perTask = (rebuilt[row.task] ??= {});
      perTask[decision.incumbent_arm] = row.incumbent;
      perTask[decision.candidate_arm] = row.candidate;
    }
  }

  // Step 7: recompute from the embedded evidence only, and demand the stored decision verbatim.
  for (const [index, decision] of decisions.entries()) {
    const policy = CandidatePolicySchema.parse(promotion.policy[decision.candidate_arm]);
    const recomputed = buildPromotionEvidence({
      results: rebuilt,
      policy: { [decision.candidate_arm]: policy },
      model: bindings.benchmark_model,
      complete: true,
    }).decisions[0];
    if (recomputed === undefined || !sameCanonical(recomputed, (raw["decisions"] as unknown[])[index])) {
      return refuse(`decisions[${index}]`, "does not equal the decision recomputed from its embedded evidence");
    }
    if (recomputed.decision !== "promote") return refuse(`decisions[${index}].decision`, `recomputes to ${recomputed.decision}`);
  }
  return { ok: true, value: { promotion } };
}
