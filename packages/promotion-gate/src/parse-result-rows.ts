import { parseResultRow } from "@wfbench/result-row";
import type { Result } from "./result.js";
import { GateRowSchema, type GateRow } from "./schema.js";

/** Why a results row was refused: its 0-based index and the first offending field. */
export interface RowRefusal {
  readonly index: number;
  readonly field: string;
  readonly message: string;
}

/**
 * Parses results.jsonl rows (already JSON-decoded) through the row contract (@wfbench/result-row) and keeps only the
 * fields the gate reads; trusts nothing, refuses the first row the contract refuses (an unknown error_kind included).
 */
export function parseResultRows(rows: readonly unknown[]): Result<GateRow[], RowRefusal> {
  const parsed: GateRow[] = [];
  for (const [index, row] of rows.entries()) {
    const result = parseResultRow(row);
    if (!result.ok) return { ok: false, error: { index, ...result.error } };
    parsed.push(GateRowSchema.parse(result.value));
  }
  return { ok: true, value: parsed };
}
