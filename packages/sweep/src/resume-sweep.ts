import { rm } from "node:fs/promises";
import { join } from "node:path";
import { dropTornTail, readJsonl } from "@wfbench/durable-fs";
import { ResultRowSchema, isCandidateArm, type ResultRow } from "@wfbench/result-row";
import { cellKey, skillKey, type ReuseExpectation } from "./comparator-reuse.js";
import type { PlannedCell } from "./plan-reuse.js";

/** The logs a sweep appends to: a SIGKILL can tear the last line of any of them. */
const SWEEP_LOGS = ["results.jsonl", "gateway-usage.jsonl", "scripted-model-requests.jsonl"];

/** What a resumed sweep keeps and what it still has to run. */
export interface ResumePlan {
  /** Rows already in results.jsonl, in log order (not written again). */
  readonly kept: readonly ResultRow[];
  /** Planned cells without a row, in canonical order. */
  readonly missing: readonly PlannedCell[];
  /** One line per torn tail dropped from a log. */
  readonly notes: readonly string[];
}

/**
 * Checks one row of the interrupted sweep against this sweep's facts: returns null, or the field that changed.
 * Unlike reuse, failed rows are kept (the cell was paid for); only the measuring conditions must be unchanged.
 */
export function findResumeDrift(row: ResultRow, expected: ReuseExpectation, overlayDigest: string | null): string | null {
  if (row.model !== expected.model) return "model";
  if (row.effort !== expected.effort) return "effort";
  if (row.sandbox_backend !== expected.sandboxBackend) return "sandbox_backend";
  if (row.runtime_digest !== expected.runtimeDigest) return "runtime_digest";
  const task = expected.tasks.get(row.task);
  if (task === undefined) return "task";
  for (const field of ["task_base_sha", "task_prompt_digest", "oracle_digest", "oracle_command_digest", "oracle_manifest_digest", "task_asset_manifest_digest", "sandbox_dependency_manifest_digest"] as const) {
    if (row[field] !== task[field]) return field;
  }
  if (isCandidateArm(row.arm)) return row.candidate_overlay_digest === overlayDigest ? null : "candidate_overlay_digest";
  // A cell that failed before its skills were fingerprinted records null: only a recorded digest can drift.
  if (row.skill_digest !== null && row.skill_digest !== expected.skillDigests.get(skillKey(row.task, row.arm))) return "skill_digest";
  return null;
}

/**
 * `--resume DIR`: drops torn last lines from the sweep's logs (never a complete line), reads results.jsonl, refuses a
 * row whose measuring conditions changed (naming the field) or that this sweep does not plan, and removes the
 * patch and review copies a killed cell left without a row, so the missing cells run again from scratch.
 * @returns the rows to keep and the cells still missing; a refusal message as a string.
 */
export async function planResume(outDir: string, planned: readonly PlannedCell[], expected: ReuseExpectation, overlayDigest: string | null): Promise<ResumePlan | string> {
  const notes: string[] = [];
  for (const log of SWEEP_LOGS) {
    const dropped = await dropTornTail(join(outDir, log));
    if (dropped !== null) notes.push(`dropped a partial last line of ${log} (${Buffer.byteLength(dropped)} bytes) left by the interrupted sweep`);
  }
  const contents = await readJsonl(join(outDir, "results.jsonl")).catch(() => ({ values: [] as unknown[] }));
  const plannedKeys = new Map(planned.map((cell) => [cellKey(cell.task.id, cell.arm, cell.run), cell]));
  const kept: ResultRow[] = [];
  const done = new Set<string>();
  for (const [index, raw] of contents.values.entries()) {
    const parsed = ResultRowSchema.safeParse(raw);
    if (!parsed.success) return `--resume ${outDir}: results.jsonl line ${index + 1} is not a row of this version (${parsed.error.issues[0]?.path.join(".") ?? ""}): resume only a sweep this build wrote`;
    const row = parsed.data;
    const key = cellKey(row.task, row.arm, row.run);
    if (!plannedKeys.has(key)) return `--resume ${outDir}: results.jsonl line ${index + 1} is cell [${row.task}][${row.arm}][run ${row.run}], which this sweep does not plan: resume with the same --tasks, --arms and --repeats`;
    if (done.has(key)) return `--resume ${outDir}: results.jsonl holds cell [${row.task}][${row.arm}][run ${row.run}] twice: the log is not one sweep's`;
    const drift = findResumeDrift(row, expected, overlayDigest);
    if (drift !== null) return `--resume ${outDir}: results.jsonl line ${index + 1} [${row.task}][${row.arm}][run ${row.run}] field ${drift} changed since it was measured: start a new sweep (or pass it as --reuse-results)`;
    done.add(key);
    kept.push(row);
  }
  const missing = planned.filter((cell) => !done.has(cellKey(cell.task.id, cell.arm, cell.run)));
  for (const cell of missing) {
    const label = `${cell.task.id}-${cell.arm}-run${cell.run}`;
    for (const name of [`${label}.patch`, `${label}.review.json`]) await rm(join(outDir, name), { force: true });
  }
  return { kept, missing, notes };
}
