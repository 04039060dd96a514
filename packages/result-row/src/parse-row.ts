import type { z } from "zod";
import { ResultRowError } from "./errors.js";
import { ParsedRowSchema, ROW_SCHEMA_VERSION, ResultRowSchema, type ParsedRow, type ResultRow, type ResultRowFields } from "./row-schema.js";

/** Why a row was refused: the first offending field (a dotted path, "" for the row itself) and what was expected. */
export interface RowRefusal {
  readonly field: string;
  readonly message: string;
}

/** A parsed row or the reason it was refused. */
export type ParseRowResult = { readonly ok: true; readonly value: ParsedRow } | { readonly ok: false; readonly error: RowRefusal };

function firstIssue(error: z.ZodError): RowRefusal {
  const issue = error.issues[0];
  return { field: issue?.path.map(String).join(".") ?? "", message: issue?.message ?? "invalid row" };
}

/**
 * Parses one results.jsonl row (already JSON-decoded) through the row contract. Trusts nothing: a row stamped with
 * the current `row_schema` must be complete and carry no unknown field; a row without the stamp (written before it
 * existed) is read with whichever contract fields it has, each of its current type, unknown fields dropped; any other
 * version is refused.
 */
export function parseResultRow(raw: unknown): ParseRowResult {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, error: { field: "", message: "a row must be a JSON object" } };
  if (Object.hasOwn(raw, "row_schema")) {
    const version: unknown = (raw as Record<string, unknown>)["row_schema"];
    if (version !== ROW_SCHEMA_VERSION) return { ok: false, error: { field: "row_schema", message: `is ${JSON.stringify(version)}; this reader knows row_schema ${ROW_SCHEMA_VERSION} and rows without it` } };
    const parsed = ResultRowSchema.safeParse(raw);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: firstIssue(parsed.error) };
  }
  const parsed = ParsedRowSchema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: firstIssue(parsed.error) };
}

/**
 * Builds a row of the current version from a writer's fields (stamps `row_schema`) and checks it against the
 * contract, so a row that would be refused by a reader is never written.
 * @throws {ResultRowError} RESULT_ROW_INVALID naming the first offending field (a harness bug).
 */
export function buildResultRow(fields: ResultRowFields): ResultRow {
  const parsed = ResultRowSchema.safeParse({ ...fields, row_schema: ROW_SCHEMA_VERSION });
  if (!parsed.success) {
    const refusal = firstIssue(parsed.error);
    throw new ResultRowError("RESULT_ROW_INVALID", refusal.field, `results row field ${refusal.field || "(row)"}: ${refusal.message}`, { cause: parsed.error });
  }
  return parsed.data;
}
