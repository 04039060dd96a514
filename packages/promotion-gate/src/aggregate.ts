import { compareCodePoints } from "@wfbench/digest";
import { median } from "@wfbench/pycompat";
import { EVIDENCE_FAILURE_KINDS, EXECUTION_FAILURE_KINDS, REVIEW_METRIC_FIELDS, isExcludedErrorKind } from "@wfbench/result-row";
import { TRANSCRIPT_MISSING_REASON, UNMEASURABLE_MEDIAN_METRICS } from "./constants.js";
import { MEDIAN_FIELDS, type Aggregate, type AggregatedResults, type GateRow } from "./schema.js";

const REVIEW_INVALID_KIND = "review-evidence-invalid";

/** True when a row enters medians: its kind is not excluded and its review evidence is not known-invalid. */
export function isValidRow(row: GateRow): boolean {
  if (isExcludedErrorKind(row.error_kind)) return false;
  return row.review_evidence_valid !== false;
}

function collectExecutionFailure(row: GateRow): string | null {
  return row.error_kind != null && EXECUTION_FAILURE_KINDS.has(row.error_kind) ? row.error_kind : null;
}

function collectEvidenceFailures(row: GateRow): string[] {
  const kinds: string[] = [];
  if (row.error_kind != null && EVIDENCE_FAILURE_KINDS.has(row.error_kind)) kinds.push(row.error_kind);
  // An invalid review artifact is an evidence failure whatever the primary kind says (reference §4.3).
  if (row.review_evidence_valid === false) kinds.push(REVIEW_INVALID_KIND);
  if (row.transcript_missing === true) kinds.push(TRANSCRIPT_MISSING_REASON);
  return kinds;
}

/**
 * A row's cost of record: the gateway's priced wire usage (`wire_cost_usd`: every request of the cell's token,
 * subagents, retries and any spend outside the CLI included). A row that predates the gateway (no such field at all,
 * e.g. the original harness's) falls back to its CLI `cost_usd`; a present null stays null (unpriced is never 0).
 */
export function costOfRecord(row: GateRow): number | null {
  return row.wire_cost_usd !== undefined ? row.wire_cost_usd : (row.cost_usd ?? null);
}

/** The median of every value, or null when there is none or any is unknown (reference §5.2 null-cost rule). */
function medianOrNull(values: readonly (number | null)[]): number | null {
  return values.length === 0 || values.some((value) => value === null) ? null : median(values as number[]);
}

function countBy<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  let total = 0;
  for (const item of items) if (predicate(item)) total += 1;
  return total;
}

/**
 * Aggregates the rows of one task × arm exactly as reference §5.2 (medians over valid rows, null-cost rule, fresh vs
 * reused health counts, review metric medians with min for blocker recall); `cost_usd` is the median cost of record
 * ({@link costOfRecord}), `cli_cost_usd` the median of the CLI's own figure beside it. Trusts rows already parsed
 * through the row contract and refuses an empty list (throws RangeError, there is nothing to aggregate).
 */
export function aggregate(rows: readonly GateRow[]): Aggregate {
  const first = rows[0];
  if (first === undefined) throw new RangeError("aggregate needs at least one row");
  const valid = rows.filter(isValidRow);
  const medianSource: readonly GateRow[] = valid.length > 0 ? valid : [];

  const medians = {} as Record<(typeof MEDIAN_FIELDS)[number], number>;
  for (const field of MEDIAN_FIELDS) {
    medians[field] = medianSource.length === 0 ? 0 : median(medianSource.map((row) => row[field] ?? 0));
  }
  const costUsd = medianOrNull(valid.map(costOfRecord));
  const cliCostUsd = medianOrNull(valid.map((row) => row.cost_usd ?? null));

  const fresh = rows.filter((row) => row.reused !== true);
  const healthReasons = new Set<string>();
  let executionFailures = 0;
  let evidenceFailures = 0;
  let admissible = 0;
  for (const row of fresh) {
    const execution = collectExecutionFailure(row);
    const evidence = collectEvidenceFailures(row);
    if (execution !== null) {
      executionFailures += 1;
      healthReasons.add(execution);
    }
    if (evidence.length > 0) evidenceFailures += 1;
    for (const kind of evidence) healthReasons.add(kind);
    // Counted directly: one row can fail both ways, so admissible ≠ attempts − execution − evidence.
    if (execution === null && evidence.length === 0) admissible += 1;
  }

  const kindCounts = new Map<string, number>();
  for (const row of rows) {
    if (row.error_kind != null) kindCounts.set(row.error_kind, (kindCounts.get(row.error_kind) ?? 0) + 1);
  }
  // Code-point order, so promotion.json's bytes never depend on the order the rows arrived in (resume, shards).
  const errorKinds: Record<string, number> = {};
  for (const kind of [...kindCounts.keys()].sort(compareCodePoints)) errorKinds[kind] = kindCounts.get(kind) as number;
  // A promotion metric a valid run did not measure (null, or absent from an older row) has no median: its median
  // field stays the 0-filled figure the report shows, and the gate reads the metric as unavailable (§4.2: an
  // unmeasured value is never 0, or a candidate wins on cheapness it never showed).
  const unmeasured = UNMEASURABLE_MEDIAN_METRICS.filter((field) => valid.some((row) => row[field] == null));

  const result: Aggregate = {
    class: first.class,
    runs: rows.length,
    valid_runs: valid.length,
    excluded_runs: rows.length - valid.length,
    resolved: countBy(rows, (row) => row.resolved),
    resolved_fresh: countBy(fresh, (row) => row.resolved),
    fresh_attempts: fresh.length,
    execution_failures: executionFailures,
    evidence_failures: evidenceFailures,
    admissible,
    health_reasons: [...healthReasons].sort(compareCodePoints),
    transcripts_missing: countBy(rows, (row) => row.transcript_missing === true),
    error_kinds: errorKinds,
    ...medians,
    cost_usd: costUsd,
    cli_cost_usd: cliCostUsd,
    ...(unmeasured.length > 0 ? { unmeasured_metrics: unmeasured } : {}),
  };

  if (valid.some((row) => row.review_weighted_f1 !== undefined)) {
    for (const field of REVIEW_METRIC_FIELDS) {
      const values = valid.map((row) => row[field] ?? null);
      if (values.some((value) => value === null)) {
        result[field] = null;
      } else {
        const present = values as number[];
        // Blocker recall is a floor: every repeat must keep the blockers, so the worst repeat speaks for the arm.
        result[field] = field === "review_blocker_recall" ? Math.min(...present) : median(present);
      }
    }
    const verdicts = valid.map((row) => row.review_verdict_correct);
    result.review_verdict_correct = verdicts.every((value) => typeof value === "boolean") ? verdicts.every((value) => value === true) : null;
    for (const field of ["review_clean_control", "review_clean_pass"] as const) {
      result[field] = valid.every((row) => row[field] !== undefined) ? valid.every((row) => row[field] === true) : null;
    }
  }
  return result;
}

// One code-point order for the whole gate (Python's sorted()); re-exported for the gate's own files.
export { compareCodePoints };

/**
 * Groups rows by task then arm and aggregates each group; trusts parsed rows, keeps tasks and arms in first-seen order
 * (decisions sort tasks themselves, so row order never changes a decision).
 */
export function aggregateByTaskArm(rows: readonly GateRow[]): AggregatedResults {
  const groups = new Map<string, Map<string, GateRow[]>>();
  for (const row of rows) {
    let arms = groups.get(row.task);
    if (arms === undefined) {
      arms = new Map();
      groups.set(row.task, arms);
    }
    const bucket = arms.get(row.arm);
    if (bucket === undefined) arms.set(row.arm, [row]);
    else bucket.push(row);
  }
  const results: Record<string, Record<string, Aggregate>> = {};
  for (const [task, arms] of groups) {
    const perArm: Record<string, Aggregate> = {};
    for (const [arm, bucket] of arms) perArm[arm] = aggregate(bucket);
    results[task] = perArm;
  }
  return results;
}
