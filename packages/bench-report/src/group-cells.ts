import { aggregate, isValidRow, MEDIAN_FIELDS, type Aggregate, type RowRefusal } from "@wfbench/promotion-gate";
import type { ParsedRow } from "@wfbench/result-row";

/** One task × arm of a report: its rows in results order and their aggregate (reference §5.2). */
export interface ReportCell {
  readonly task: string;
  readonly arm: string;
  readonly rows: readonly ParsedRow[];
  readonly aggregate: Aggregate;
  /** Median fields some valid row left unmeasured (null or absent): their 0-filled median is not a figure to show. */
  readonly unmeasured: ReadonlySet<(typeof MEDIAN_FIELDS)[number]>;
}

/** One task of a report and its arms, both in first-seen order. */
export interface ReportTask {
  readonly task: string;
  readonly cells: readonly ReportCell[];
}

/**
 * Groups rows by task then arm in first-seen order (reference §4.4: insertion order, as a Python dict keeps it) and
 * aggregates each group. Kept in Maps, not object keys: a task id such as `10` or `__proto__` would otherwise be
 * reordered ahead of the others or vanish. Trusts rows already parsed by the row contract.
 */
export function groupReportCells(rows: readonly ParsedRow[]): ReportTask[] {
  const tasks = new Map<string, Map<string, ParsedRow[]>>();
  for (const row of rows) {
    let arms = tasks.get(row.task);
    if (arms === undefined) tasks.set(row.task, (arms = new Map()));
    const bucket = arms.get(row.arm);
    if (bucket === undefined) arms.set(row.arm, [row]);
    else bucket.push(row);
  }
  return [...tasks].map(([task, arms]) => ({
    task,
    cells: [...arms].map(([arm, bucket]) => {
      const valid = bucket.filter(isValidRow);
      return { task, arm, rows: bucket, aggregate: aggregate(bucket), unmeasured: new Set(MEDIAN_FIELDS.filter((field) => valid.some((row) => row[field] == null))) };
    }),
  }));
}

/**
 * The first row that repeats an earlier row's cell (task, arm, run): a hand-edited or badly merged results.jsonl.
 * Counting both would weigh that cell twice in every median, and pairing would silently keep one; `wfbench merge`
 * refuses the same. Null when every cell appears once.
 */
export function findDuplicateCell(rows: readonly ParsedRow[]): RowRefusal | null {
  const seen = new Map<string, number>();
  for (const [index, row] of rows.entries()) {
    // A row without a run number (older than the field) cannot be told apart from another; it is not judged.
    if (row.run === undefined) continue;
    const key = JSON.stringify([row.task, row.arm, row.run]);
    const first = seen.get(key);
    if (first !== undefined) return { index, field: "run", message: `repeats the cell (task ${JSON.stringify(row.task)}, arm ${row.arm}, run ${row.run}) of row ${first}: a cell has one row; remove the copy (or re-merge the shards)` };
    seen.set(key, index);
  }
  return null;
}
