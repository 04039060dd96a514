import type { Result } from "./result.js";
import { ResultRowSchema, type ResultRow } from "./schema.js";

/** Why a results row was refused: its 0-based index and the first offending field. */
export interface RowRefusal {
  readonly index: number;
  readonly field: string;
  readonly message: string;
}

/**
 * Parses results.jsonl rows (already JSON-decoded) with ResultRowSchema; trusts nothing, keeps only the fields the gate
 * reads, refuses the first row that does not parse (an unknown error_kind included).
 */
export function parseResultRows(rows: readonly unknown[]): Result<ResultRow[], RowRefusal> {
  const parsed: ResultRow[] = [];
  for (const [index, row] of rows.entries()) {
    const result = ResultRowSchema.safeParse(row);
    if (!result.success) {
      const issue = result.error.issues[0];
      return { ok: false, error: { index, field: issue?.path.map(String).join(".") ?? "", message: issue?.message ?? "invalid row" } };
    }
    parsed.push(result.data);
  }
  return { ok: true, value: parsed };
}
