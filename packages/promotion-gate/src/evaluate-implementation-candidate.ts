import { compareCodePoints } from "./aggregate.js";
import { assertAggregate } from "./check-aggregate.js";
import {
  MAIN_LOOP_ONLY_METRICS,
  MAIN_LOOP_ONLY_WARNING,
  PROMOTION_METRICS,
  RESOLUTION_MARGIN_TO_PROMOTE,
  type PromotionMetric,
} from "./constants.js";
import { PromotionError } from "./errors.js";
import { formatNumber } from "./format-number.js";
import { computeMedian, roundHalfEven } from "./python-round.js";
import type { ErrorKind } from "@wfbench/result-row";
import type { Aggregate, AggregatedResults, DecisionValue, ImplementationDecision, ImplementationPolicy, ImplementationTaskRow } from "./schema.js";

/** Inputs of evaluateImplementationCandidate. */
export interface ImplementationCandidateInput {
  readonly results: AggregatedResults;
  readonly incumbentArm: string;
  readonly candidateArm: string;
  readonly policy: ImplementationPolicy;
  /** The benchmark model; null or blank means unnamed, which can never promote. */
  readonly model: string | null;
}

/** Aggregate rates are resolved/valid_runs; resolved counts reused rows too (reference §5.2). */
function computeRate(resolved: number, validRuns: number): number {
  return validRuns === 0 ? 0 : resolved / validRuns;
}

/** §5.3 "error_kinds contains": the kind is listed with a count above zero (checkAggregate refuses a zero count). */
function containsKind(aggregate: Aggregate, kind: ErrorKind): boolean {
  return (aggregate.error_kinds[kind] ?? 0) > 0;
}

/** The aggregate's metric, or null when it is unpriced (cost) or some valid run left it unmeasured. */
function readMetric(aggregate: Aggregate, metric: PromotionMetric): number | null {
  return (aggregate.unmeasured_metrics as readonly string[] | undefined)?.includes(metric) === true ? null : aggregate[metric];
}

function formatRate(rate: number): string {
  return formatNumber(100 * rate, 1);
}

/**
 * Implementation promotion gate (reference §5.3): every rule, order and threshold; trusts aggregate field types
 * (aggregate() or AggregateSchema) and refuses a pair that breaks a §5.2 invariant (AggregateInvariantError,
 * PROMOTION_AGGREGATE_INVALID, naming task, arm and field) instead of deciding on it; throws
 * PromotionError(PROMOTION_UNKNOWN_METRIC) for a metric outside PROMOTION_METRICS; never reads a clock or the environment.
 */
export function evaluateImplementationCandidate(input: ImplementationCandidateInput): ImplementationDecision {
  const { results, incumbentArm, candidateArm, policy, model } = input;
  const metric: PromotionMetric = policy.metric;
  if (!(PROMOTION_METRICS as readonly string[]).includes(metric)) {
    throw new PromotionError("PROMOTION_UNKNOWN_METRIC", `unknown promotion metric ${JSON.stringify(metric)}; expected one of ${PROMOTION_METRICS.join(", ")}`);
  }
  const reasons: string[] = [];
  let insufficient = false;
  let regression = false;
  if (model === null || model.trim() === "") {
    insufficient = true;
    reasons.push("a named --model is required to promote; evidence from an unnamed model cannot be bound");
  }

  const rows: ImplementationTaskRow[] = [];
  const gatedTasks: string[] = [];
  const ungatedTasks: string[] = [];
  const gatedImprovements: number[] = [];
  let candidateResolvedTotal = 0;
  let incumbentResolvedTotal = 0;

  for (const task of Object.keys(results).sort(compareCodePoints)) {
    const arms = results[task] ?? {};
    const inc = arms[incumbentArm];
    const cand = arms[candidateArm];
    if (inc === undefined || cand === undefined) {
      insufficient = true;
      reasons.push(`${task}: ${inc === undefined ? incumbentArm : candidateArm} has no results, so the pair cannot be compared`);
      continue;
    }
    assertAggregate(task, incumbentArm, inc);
    assertAggregate(task, candidateArm, cand);
    const incRuns = inc.valid_runs;
    const candRuns = cand.valid_runs;
    const incRate = computeRate(inc.resolved, incRuns);
    const candRate = computeRate(cand.resolved, candRuns);
    const incMetric = readMetric(inc, metric);
    const candMetric = readMetric(cand, metric);
    const metricAvailable = incMetric !== null && candMetric !== null;
    // Order of float operations matters for exact recompute: 100*(inc−cand) first, then /inc.
    const improvement = metricAvailable && incMetric !== 0 ? roundHalfEven((100 * (incMetric - candMetric)) / incMetric, 1) : null;
    const fullyMeasured =
      incRuns >= policy.min_runs && candRuns >= policy.min_runs && incRuns === candRuns && inc.excluded_runs === 0 && cand.excluded_runs === 0;
    const skillAttributable = containsKind(inc, "skill-not-invoked") || containsKind(cand, "skill-not-invoked");
    const mutuallyUnresolved = fullyMeasured && inc.resolved === 0 && cand.resolved === 0;
    const gated = !(mutuallyUnresolved && !skillAttributable && improvement !== null);
    const floorEnforced = inc.resolved >= 1 || skillAttributable;
    // The original's floor: at least one valid candidate run, every one resolved (0 valid runs never meet it).
    const floorMet = candRuns > 0 && cand.resolved >= candRuns;

    incumbentResolvedTotal += inc.resolved;
    candidateResolvedTotal += cand.resolved;
    rows.push({
      task,
      class: inc.class,
      incumbent_resolved: `${inc.resolved}/${incRuns}`,
      incumbent: inc,
      candidate: cand,
      candidate_resolved: `${cand.resolved}/${candRuns}`,
      incumbent_excluded_runs: inc.excluded_runs,
      candidate_excluded_runs: cand.excluded_runs,
      candidate_quality_floor_met: floorMet,
      quality_floor_enforced: floorEnforced,
      incumbent_metric: incMetric,
      candidate_metric: candMetric,
      improvement_pct: improvement,
      gated,
      skill_attributable_failure: skillAttributable,
    });

    if (!gated) {
      ungatedTasks.push(task);
      // Ungated tasks give no quality signal; only a blow-up in spend beyond the failed-task cap counts against them.
      if (improvement !== null && improvement < -policy.max_failed_task_regression_pct) {
        regression = true;
        reasons.push(
          `${task}: ${metric} regressed ${formatNumber(-improvement, 1)}% on a task neither arm resolves (beyond the ${formatNumber(policy.max_failed_task_regression_pct, 1)}% failed-task cap)`,
        );
      }
      continue;
    }
    gatedTasks.push(task);
    if (incRuns < policy.min_runs || candRuns < policy.min_runs) {
      insufficient = true;
      reasons.push(`${task}: needs at least ${policy.min_runs} valid runs per arm (incumbent ${incRuns}, candidate ${candRuns})`);
    }
    if (inc.excluded_runs > 0 || cand.excluded_runs > 0) {
      insufficient = true;
      reasons.push(
        `${task}: promotion requires zero excluded runs in both paired arms (incumbent ${inc.excluded_runs}, candidate ${cand.excluded_runs})`,
      );
    }
    if (incRuns !== candRuns) {
      insufficient = true;
      reasons.push(`${task}: unequal valid run counts (incumbent ${incRuns}, candidate ${candRuns})`);
    }
    if (candRate < incRate) {
      regression = true;
      reasons.push(`${task}: resolution regressed from ${formatRate(incRate)}% to ${formatRate(candRate)}%`);
    }
    if (floorEnforced && !floorMet) {
      regression = true;
      reasons.push(`${task}: quality floor failed: the candidate resolved ${cand.resolved}/${candRuns} valid runs and must resolve every one`);
    }
    if (!metricAvailable) {
      insufficient = true;
      reasons.push(`${task}: ${metric} was not measured on every run (metric unavailable)`);
    } else if (improvement === null) {
      insufficient = true;
      reasons.push(`${task}: incumbent ${metric} is 0, so no improvement can be computed`);
    } else if (improvement < -policy.max_task_regression_pct) {
      regression = true;
      reasons.push(`${task}: ${metric} regressed ${formatNumber(-improvement, 1)}% (beyond the ${formatNumber(policy.max_task_regression_pct, 1)}% task cap)`);
    }
    if (improvement !== null) gatedImprovements.push(improvement);
  }

  const total = rows.length;
  if (ungatedTasks.length > 0) {
    reasons.push(
      `ungated tasks (fully measured, neither arm resolved a run; held only to the failed-task cap): ${ungatedTasks.join(", ")}; gated ${gatedTasks.length}/${total}`,
    );
  }
  if (total === 0) {
    insufficient = true;
    reasons.push("no task has results for both arms, so there is nothing to compare");
  } else if (gatedTasks.length === 0) {
    insufficient = true;
    reasons.push("no task supplied quality signal: every task was ungated");
  } else if (gatedTasks.length < policy.min_gated_task_ratio * total) {
    insufficient = true;
    reasons.push(
      `evidence base is too thin: only ${gatedTasks.length} of ${total} tasks are gated (need at least ${formatNumber(100 * policy.min_gated_task_ratio, 1)}%)`,
    );
  }

  const medianImprovement = gatedImprovements.length === 0 ? null : roundHalfEven(computeMedian(gatedImprovements), 1);
  const margin = candidateResolvedTotal - incumbentResolvedTotal;

  let decision: DecisionValue;
  if (insufficient) {
    decision = "insufficient_evidence";
  } else if (regression) {
    decision = "keep_incumbent";
  } else if (margin >= RESOLUTION_MARGIN_TO_PROMOTE) {
    decision = "promote";
    reasons.push(`improves total task resolution by ${margin} runs across the paired tasks`);
  } else {
    if (margin === 1) reasons.push("a resolution margin of 1 run is within the noise floor; the decision rests on efficiency");
    if (medianImprovement === null) {
      decision = "keep_incumbent";
      reasons.push(`no median ${metric} improvement could be computed`);
    } else if (medianImprovement >= policy.min_improvement_pct) {
      decision = "promote";
      reasons.push(`median ${metric} improvement ${formatNumber(medianImprovement, 1)}% meets the ${formatNumber(policy.min_improvement_pct, 1)}% threshold`);
    } else {
      decision = "keep_incumbent";
      reasons.push(`median ${metric} improvement ${formatNumber(medianImprovement, 1)}% is below the ${formatNumber(policy.min_improvement_pct, 1)}% threshold`);
    }
  }

  return {
    incumbent_arm: incumbentArm,
    candidate_arm: candidateArm,
    decision,
    metric,
    metric_warning: MAIN_LOOP_ONLY_METRICS.includes(metric) ? MAIN_LOOP_ONLY_WARNING : null,
    median_improvement_pct: medianImprovement,
    ungated_tasks: ungatedTasks,
    gated_tasks: gatedTasks,
    reasons,
    tasks: rows,
  };
}
