import { canonicalJson, compareCodePoints } from "@wfbench/digest";
import { costOfRecord, isValidRow } from "@wfbench/promotion-gate";
import { median, roundHalfEven } from "@wfbench/pycompat";
import { CE_ARMS, isCandidateArm, isCeArm, isSupportedArm, resolveIncumbentArm, type ParsedRow } from "@wfbench/result-row";

/** Bootstrap resamples per interval: enough for stable 2.5/97.5 percentiles, cheap for n ≤ a few hundred pairs. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The seed every interval starts from (mixed with the comparison's name), so report.md is byte-for-byte reproducible. */
export const BOOTSTRAP_SEED = 0x5eed_2026;
/** The relative cost difference the run-count hint is sized for. */
export const DETECTABLE_COST_DIFFERENCE = 0.05;

const Z_975 = 1.959963984540054;
const Z_80 = 0.8416212335729143;

/** A paired statistic: the point estimate and its percentile bootstrap 95% interval; null without a pair. */
export interface PairedInterval {
  readonly estimate: number | null;
  readonly low: number | null;
  readonly high: number | null;
}

/** One arm against its reference (baseline, or a candidate's incumbent) over the (task, run) pairs both have valid. */
export interface PairedComparison {
  /** A task name, or null for every task pooled (pairs keyed by task and run). */
  readonly task: string | null;
  readonly arm: string;
  readonly reference: string;
  readonly relation: "baseline" | "incumbent" | "ce-comparator";
  readonly pairs: number;
  /** Median of (arm − reference) per pair: negative means the arm costs less. Cost of record, wall seconds, turns; null when any pair left the metric unmeasured. */
  readonly cost_usd: PairedInterval;
  readonly duration_s: PairedInterval;
  readonly num_turns: PairedInterval;
  /** Arm resolve rate minus reference resolve rate over the pairs, with its bootstrap interval. */
  readonly resolve_rate_diff: PairedInterval;
  /** Resolved / valid runs of the arm over the pairs: a saving of an arm that did not resolve is not a saving. */
  readonly arm_resolved: number;
  /** Runs per arm a paired test needs to detect a 5% cost difference at this variance; null when it cannot be estimated. */
  readonly runs_for_5pct_cost: number | null;
}

/** Everything report-stats.json holds. */
export interface ReportStats {
  readonly schema_version: 1;
  readonly bootstrap: { readonly resamples: number; readonly seed: number; readonly confidence: 0.95; readonly prng: "mulberry32" };
  readonly comparisons: readonly PairedComparison[];
}

/** mulberry32: a tiny 32-bit PRNG, good enough for resampling and identical on every platform. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the comparison's name: each interval gets its own stream, independent of which others exist. */
function seedFor(name: string): number {
  let hash = 0x811c9dc5 ^ BOOTSTRAP_SEED;
  for (let i = 0; i < name.length; i += 1) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Linear-interpolated percentile of sorted values (numpy's default), q in [0, 1]. */
function percentile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] ?? 0;
  const b = sorted[upper] ?? a;
  return a + (b - a) * (position - lower);
}

/** Percentile bootstrap of `statistic` over paired differences; rounding keeps float noise out of the JSON. */
export function bootstrapInterval(deltas: readonly number[], statistic: (sample: readonly number[]) => number, seedName: string, resamples = BOOTSTRAP_RESAMPLES): PairedInterval {
  if (deltas.length === 0) return { estimate: null, low: null, high: null };
  const random = mulberry32(seedFor(seedName));
  const estimates: number[] = [];
  const sample = new Array<number>(deltas.length);
  for (let r = 0; r < resamples; r += 1) {
    for (let i = 0; i < deltas.length; i += 1) sample[i] = deltas[Math.floor(random() * deltas.length)] ?? 0;
    estimates.push(statistic(sample));
  }
  estimates.sort((a, b) => a - b);
  const round = (value: number): number => roundHalfEven(value, 6);
  const interval = { estimate: round(statistic(deltas)), low: round(percentile(estimates, 0.025)), high: round(percentile(estimates, 0.975)) };
  // Deltas near ±1.8e308 overflow to ±Infinity or NaN, which canonical JSON refuses: such a statistic is unknown.
  if (!Number.isFinite(interval.estimate) || !Number.isFinite(interval.low) || !Number.isFinite(interval.high)) return { estimate: null, low: null, high: null };
  return interval;
}

/**
 * Runs per arm for a paired two-sided test (α = 0.05, power 0.8) to detect a 5% cost difference:
 * n ≈ ((z_{.975} + z_{.8}) · sd / (0.05 · mean))², sd = sample sd of the paired cost deltas, mean = the reference's
 * mean cost. Null with fewer than 2 pairs (no variance) or a zero reference cost; at least 2 (a variance needs two).
 */
export function runsToDetect(costDeltas: readonly number[], referenceCosts: readonly number[]): number | null {
  if (costDeltas.length < 2 || referenceCosts.length === 0) return null;
  const referenceMean = mean(referenceCosts);
  if (referenceMean <= 0) return null;
  const m = mean(costDeltas);
  const sd = Math.sqrt(costDeltas.reduce((sum, value) => sum + (value - m) ** 2, 0) / (costDeltas.length - 1));
  const n = (((Z_975 + Z_80) * sd) / (DETECTABLE_COST_DIFFERENCE * referenceMean)) ** 2;
  if (!Number.isFinite(n)) return null;
  return Math.max(2, Math.ceil(roundHalfEven(n, 9)));
}

type Pair = { readonly arm: ParsedRow; readonly reference: ParsedRow };

function compare(task: string | null, arm: string, reference: string, relation: PairedComparison["relation"], pairs: readonly Pair[]): PairedComparison {
  const name = `${task ?? "*"}\u0000${arm}\u0000${reference}`;
  // One pair that did not measure a metric (an unpriced cost, a null wall time) leaves that metric's statistic unknown,
  // as one unpriced valid run leaves the main table's median cost n/a (§5.2): the other pairs are not a sample of all.
  const measured = (pick: (row: ParsedRow) => number | null | undefined): { arm: number; reference: number }[] | null => {
    const values: { arm: number; reference: number }[] = [];
    for (const { arm: a, reference: r } of pairs) {
      const x = pick(a);
      const y = pick(r);
      if (typeof x !== "number" || typeof y !== "number") return null;
      values.push({ arm: x, reference: y });
    }
    return values;
  };
  const deltas = (pick: (row: ParsedRow) => number | null | undefined): number[] => (measured(pick) ?? []).map((value) => value.arm - value.reference);
  const costDeltas = deltas(costOfRecord);
  const referenceCosts = (measured(costOfRecord) ?? []).map((value) => value.reference);
  const resolvedDeltas = pairs.map(({ arm: a, reference: r }) => Number(a.resolved) - Number(r.resolved));
  return {
    task,
    arm,
    reference,
    relation,
    pairs: pairs.length,
    cost_usd: bootstrapInterval(costDeltas, median, `${name}\u0000cost`),
    duration_s: bootstrapInterval(deltas((row) => row.duration_s), median, `${name}\u0000wall`),
    num_turns: bootstrapInterval(deltas((row) => row.num_turns), median, `${name}\u0000turns`),
    resolve_rate_diff: bootstrapInterval(resolvedDeltas, mean, `${name}\u0000resolved`),
    arm_resolved: pairs.filter((pair) => pair.arm.resolved).length,
    runs_for_5pct_cost: task === null ? null : runsToDetect(costDeltas, referenceCosts),
  };
}

/**
 * Paired comparisons of every arm against `baseline`, every candidate arm against its incumbent and every GitNexus arm
 * against the CE comparator of its shape (review and candidate_review against ce_review), per task and with
 * every task pooled, paired by (task, run) over rows valid on both sides. Pure and deterministic (fixed-seed bootstrap);
 * trusts rows already parsed by the row contract; an arm without its reference yields no comparison.
 */
export function computeReportStats(rows: readonly ParsedRow[]): ReportStats {
  const valid = new Map<string, ParsedRow>();
  const arms: string[] = [];
  const tasks: string[] = [];
  for (const row of rows) {
    if (!isValidRow(row)) continue;
    valid.set(`${row.task}\u0000${row.arm}\u0000${row.run}`, row);
    if (!arms.includes(row.arm)) arms.push(row.arm);
    if (!tasks.includes(row.task)) tasks.push(row.task);
  }
  const references: { arm: string; reference: string; relation: PairedComparison["relation"] }[] = [];
  for (const arm of arms) {
    if (arm !== "baseline" && arms.includes("baseline")) references.push({ arm, reference: "baseline", relation: "baseline" });
    if (isSupportedArm(arm) && isCandidateArm(arm)) references.push({ arm, reference: resolveIncumbentArm(arm), relation: "incumbent" });
    // The CE comparator is paired with every arm of its shape: ce_review with both review and candidate_review.
    if (isSupportedArm(arm) && !isCeArm(arm) && arm !== "baseline") {
      for (const ce of arms) if (isCeArm(ce) && CE_ARMS[ce] === resolveIncumbentArm(arm)) references.push({ arm, reference: ce, relation: "ce-comparator" });
    }
  }
  const comparisons: PairedComparison[] = [];
  for (const { arm, reference, relation } of references) {
    const pooled: Pair[] = [];
    for (const task of tasks) {
      const pairs: Pair[] = [];
      for (const row of valid.values()) {
        if (row.task !== task || row.arm !== arm) continue;
        const other = valid.get(`${task}\u0000${reference}\u0000${row.run}`);
        if (other !== undefined) pairs.push({ arm: row, reference: other });
      }
      if (pairs.length === 0) continue;
      pairs.sort((a, b) => (a.arm.run ?? 0) - (b.arm.run ?? 0));
      pooled.push(...pairs);
      comparisons.push(compare(task, arm, reference, relation, pairs));
    }
    // The resample draws by position: pooled pairs go in (task code point, run) order, so the interval is a function
    // of the evidence alone, not of the order a resume or a merge left the rows in.
    pooled.sort((a, b) => compareCodePoints(a.arm.task, b.arm.task) || (a.arm.run ?? 0) - (b.arm.run ?? 0));
    if (pooled.length > 0) comparisons.push(compare(null, arm, reference, relation, pooled));
  }
  return { schema_version: 1, bootstrap: { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED, confidence: 0.95, prng: "mulberry32" }, comparisons };
}

/** report-stats.json's bytes: canonical JSON (sorted keys, @wfbench/digest) and a final newline, so reruns diff clean. */
export function formatReportStats(stats: ReportStats): string {
  return `${canonicalJson(stats)}\n`;
}
