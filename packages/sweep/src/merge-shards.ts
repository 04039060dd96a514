import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { REPORT_PROVENANCE_FILE, formatReportProvenance, openResultsLog, parseReportProvenance, readResultsLog, renderReport, type ReportProvenance, type SweepStatus } from "@wfbench/bench-report";
import { canonicalJson, digestJson, isDigestError, sha256Hex } from "@wfbench/digest";
import { isDurableFsError, readFileUnderRoot, writeFileAtomic, writeFileExclusive } from "@wfbench/durable-fs";
import { TaskBindingSchema, formatPromotionFile, type Promotion, type PromotionMetric } from "@wfbench/promotion-gate";
import { writeHtmlReport } from "@wfbench/report-html";
import { ResultRowSchema, isSupportedArm, type Arm, type ResultRow } from "@wfbench/result-row";
import { buildSweepPromotion } from "./build-sweep-promotion.js";
import { createContaminationTracker } from "./contamination.js";
import { createEmptyOutDir } from "./create-empty-out-dir.js";
import { SweepError } from "./errors.js";
import { SWEEP_PLAN_FILE, SweepPlanSchema, assignShard, buildSweepPlan, cellKey, formatSweepPlan, type SweepPlan } from "./shard-plan.js";

/** What `wfbench merge` merges: the output directory (new or empty) and the shards' output directories. */
export interface MergeShardsInput {
  readonly out: string;
  readonly shardDirs: readonly string[];
  /** promotion.json's generation time. */
  readonly now: Date;
}

/** What a merge wrote. */
export interface MergeShardsSummary {
  readonly outDir: string;
  readonly resultsPath: string;
  readonly reportPath: string;
  readonly rows: number;
  readonly shards: number;
  readonly status: SweepStatus;
  /** Rows whose contamination alarm fired (across shards: the alarm is recomputed over the merged rows). */
  readonly contaminatedRows: number;
  readonly promotion: { readonly path: string; readonly decisions: readonly { readonly candidateArm: string; readonly decision: string }[] } | null;
}

// Bounds of what one shard file may hold; a larger file is refused, never truncated.
const MAX_PLAN_BYTES = 64 * 1024 * 1024;
const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;
/** Evidence logs the sweep appends beside results.jsonl; the merge concatenates them in shard order. */
const SIDE_LOGS = ["gateway-usage.jsonl", "scripted-model-requests.jsonl"] as const;
/** Row facts every row of one sweep shares (null equals null). */
const SWEEP_ROW_FIELDS = ["model", "effort", "sandbox_backend", "runtime_digest"] as const;
/** Row facts every row of one arm shares (only some arms carry them). */
const ARM_ROW_FIELDS = ["candidate_overlay_digest", "ce_plugin_version", "ce_plugin_manifest_digest"] as const;

interface Shard {
  readonly dir: string;
  readonly plan: SweepPlan;
  readonly index: number;
  readonly count: number;
  readonly provenance: ReportProvenance;
  readonly rows: ResultRow[];
}

function refuse(message: string): SweepError {
  return new SweepError("SWEEP_BAD_INPUT", message);
}

const label = (cell: { task: string; arm: string; run: number }): string => `[${cell.task}][${cell.arm}][run ${cell.run}]`;

async function readShardFile(dir: string, name: string, maxBytes: number): Promise<Buffer | null> {
  try {
    return (await readFileUnderRoot(dir, name, maxBytes)).bytes;
  } catch (error) {
    if (isDurableFsError(error) && error.errno === "ENOENT") return null;
    if (isDurableFsError(error)) throw refuse(`shard ${dir}: ${name} refused (${error.code}): ${error.message}: pass the output directory a shard wrote, unmodified`);
    throw error;
  }
}

// The identity's task bindings are loose objects read from a file: a 1e400 or a 100,000-level list there has no
// canonical JSON. Every other canonicalJson below sees values that passed this digest or the strict schemas (zod's
// number and int refuse Infinity, so no row or cell can hold one).
function digestIdentity(dir: string, identity: SweepPlan["identity"]): string {
  try {
    return digestJson(identity);
  } catch (error) {
    if (!isDigestError(error)) throw error;
    throw refuse(`shard ${dir}: ${SWEEP_PLAN_FILE} identity has no canonical JSON (${error.message}): the file was edited; restore the one the shard wrote`);
  }
}

async function readShard(dir: string): Promise<Shard> {
  const planBytes = await readShardFile(dir, SWEEP_PLAN_FILE, MAX_PLAN_BYTES);
  if (planBytes === null) throw refuse(`shard ${dir} has no ${SWEEP_PLAN_FILE}: pass the output directory of a \`wfbench run --shard k/N\``);
  let raw: unknown;
  try {
    raw = JSON.parse(planBytes.toString("utf8"));
  } catch {
    throw refuse(`shard ${dir}: ${SWEEP_PLAN_FILE} is not JSON: restore the file the shard wrote`);
  }
  const plan = SweepPlanSchema.safeParse(raw);
  if (!plan.success) throw refuse(`shard ${dir}: ${SWEEP_PLAN_FILE} field ${plan.error.issues[0]?.path.join(".") ?? ""}: ${plan.error.issues[0]?.message ?? "invalid"}: restore the file the shard wrote`);
  if (digestIdentity(dir, plan.data.identity) !== plan.data.identity_digest) throw refuse(`shard ${dir}: ${SWEEP_PLAN_FILE} identity does not match its identity_digest: the file was edited; restore the one the shard wrote`);
  const provenanceBytes = await readShardFile(dir, REPORT_PROVENANCE_FILE, MAX_PLAN_BYTES);
  if (provenanceBytes === null) throw refuse(`shard ${dir} has no ${REPORT_PROVENANCE_FILE}: the shard did not finish; re-run it into a new directory`);
  const provenance = parseReportProvenance(provenanceBytes.toString("utf8"));
  if (!provenance.ok) throw refuse(`shard ${dir}: ${REPORT_PROVENANCE_FILE} field ${provenance.error.field || "(file)"}: ${provenance.error.message}`);
  const log = await readResultsLog(join(dir, "results.jsonl")).catch((cause: unknown) => {
    throw new SweepError("SWEEP_BAD_INPUT", `shard ${dir}: results.jsonl unreadable (${(cause as Error).message}): pass a finished shard's directory`, { cause });
  });
  if (log.tornTail) throw refuse(`shard ${dir}: results.jsonl ends in a torn line (an interrupted write): re-run the shard into a new directory`);
  const rows = log.rows.map((value, line) => {
    const row = ResultRowSchema.safeParse(value);
    if (!row.success) throw refuse(`shard ${dir}: results.jsonl line ${line + 1} field ${row.error.issues[0]?.path.join(".") ?? ""}: ${row.error.issues[0]?.message ?? "invalid"}: merge only rows this runner wrote`);
    return row.data;
  });
  const shard = plan.data.shard ?? { index: 1, count: 1 };
  return { dir, plan: plan.data, index: shard.index, count: shard.count, provenance: provenance.value, rows };
}

// Names the first identity field two shards disagree on, so the operator sees which setting differs.
function identityDifference(a: SweepPlan, b: SweepPlan): string {
  const keys = Object.keys(a.identity) as (keyof SweepPlan["identity"])[];
  const field = keys.find((key) => canonicalJson(a.identity[key]) !== canonicalJson(b.identity[key])) ?? "identity";
  const show = (value: unknown): string => {
    const text = canonicalJson(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  return `${field} (${show(a.identity[field as keyof SweepPlan["identity"]])} vs ${show(b.identity[field as keyof SweepPlan["identity"]])})`;
}

/** Checks that the shards are the parts of one sweep and returns every planned row once, in plan order. */
function collectRows(shards: readonly Shard[]): ResultRow[] {
  const first = shards[0] as Shard;
  for (const shard of shards) {
    if (shard.plan.identity_digest !== first.plan.identity_digest) throw refuse(`shard ${shard.dir} is from another sweep than ${first.dir}: identity field ${identityDifference(first.plan, shard.plan)}: merge shards of one sweep only`);
    if (canonicalJson(shard.plan.cells) !== canonicalJson(first.plan.cells)) throw refuse(`shard ${shard.dir} plans other cells than ${first.dir}: merge shards of one sweep only`);
    if (shard.count !== first.count) throw refuse(`shard ${shard.dir} is shard ${shard.index}/${shard.count} but ${first.dir} is ${first.index}/${first.count}: merge the N shards of one --shard k/N split`);
  }
  const byIndex = new Map<number, string>();
  for (const shard of shards) {
    const other = byIndex.get(shard.index);
    if (other !== undefined) throw refuse(`shard ${shard.index}/${shard.count} given twice (${other} and ${shard.dir}): pass each shard once`);
    byIndex.set(shard.index, shard.dir);
  }
  const planned = new Set(first.plan.cells.map(cellKey));
  const found = new Map<string, { row: ResultRow; dir: string }>();
  for (const shard of shards) {
    for (const row of shard.rows) {
      const key = cellKey(row);
      if (!planned.has(key)) throw refuse(`shard ${shard.dir}: row ${label(row)} is not a cell of the sweep's plan: merge only the shards' own output`);
      const earlier = found.get(key);
      if (earlier !== undefined) throw refuse(`cell ${label(row)} is recorded twice (in ${earlier.dir} and ${shard.dir}): each planned cell must be in exactly one shard`);
      const owner = assignShard(row, shard.count);
      if (owner !== shard.index) throw refuse(`shard ${shard.dir} (${shard.index}/${shard.count}) holds ${label(row)}, which belongs to shard ${owner}/${shard.count}: pass each shard's own output`);
      found.set(key, { row, dir: shard.dir });
    }
  }
  const missing = first.plan.cells.filter((cell) => !found.has(cellKey(cell)));
  if (missing.length > 0) {
    const absent = Array.from({ length: first.count }, (_, i) => i + 1).filter((index) => !byIndex.has(index));
    const hint = absent.length > 0 ? `shard(s) ${absent.map((i) => `${i}/${first.count}`).join(", ")} not given` : `a shard did not finish (statuses: ${shards.map((s) => `${s.index}/${s.count} ${s.provenance.status}`).join(", ")})`;
    const named = missing.slice(0, 8).map(label).join(", ");
    throw refuse(`${missing.length} planned cell(s) missing: ${named}${missing.length > 8 ? `, +${missing.length - 8} more` : ""} (${hint}): re-run the shard that owns them into a new directory and merge again`);
  }
  const rows = first.plan.cells.map((cell) => (found.get(cellKey(cell)) as { row: ResultRow }).row);
  checkRowIdentity(rows, found);
  return rows;
}

function checkRowIdentity(rows: readonly ResultRow[], found: ReadonlyMap<string, { dir: string }>): void {
  const where = (row: ResultRow): string => `${label(row)} of ${found.get(cellKey(row))?.dir ?? "?"}`;
  const first = rows[0];
  for (const row of rows) {
    for (const field of SWEEP_ROW_FIELDS) {
      if (first !== undefined && canonicalJson(row[field] ?? null) !== canonicalJson(first[field] ?? null)) throw refuse(`rows disagree on ${field}: ${where(first)} has ${canonicalJson(first[field] ?? null)}, ${where(row)} has ${canonicalJson(row[field] ?? null)}: shards of one sweep run with one model, effort, sandbox backend and runtime`);
    }
  }
  for (const field of ARM_ROW_FIELDS) {
    const byArm = new Map<string, ResultRow>();
    for (const row of rows) {
      const seen = byArm.get(row.arm);
      if (seen === undefined) byArm.set(row.arm, row);
      else if (canonicalJson(row[field] ?? null) !== canonicalJson(seen[field] ?? null)) throw refuse(`rows of arm ${row.arm} disagree on ${field}: ${where(seen)} vs ${where(row)}: shards of one sweep share one overlay and one CE plugin`);
    }
  }
}

async function prepareMergeDir(out: string): Promise<void> {
  await createEmptyOutDir(out, "merge output");
}

// With `out` null it only verifies: the merge checks every artifact before it creates anything.
async function copyArtifact(shardDir: string, out: string | null, path: string, check: { sha256: string | null; bytes: number | null }, what: string): Promise<void> {
  const bytes = await readShardFile(shardDir, path, MAX_ARTIFACT_BYTES);
  if (bytes === null) throw refuse(`shard ${shardDir}: ${what} ${path} is missing: restore the shard's directory as it was written`);
  // Re-digested on the way: a file changed after its row was written is refused, never merged as evidence.
  if ((check.sha256 !== null && sha256Hex(bytes) !== check.sha256) || (check.bytes !== null && bytes.length !== check.bytes)) throw refuse(`shard ${shardDir}: ${what} ${path} does not match the digest its row records: the shard's files changed after the sweep`);
  if (out === null) return;
  await mkdir(dirname(join(out, path)), { recursive: true, mode: 0o700 });
  await writeFileExclusive(join(out, path), bytes, { mode: 0o600 });
}

async function copyRowArtifacts(row: ResultRow, shardDir: string, out: string | null): Promise<void> {
  for (const artifact of row.transcript_artifacts) await copyArtifact(shardDir, out, artifact.path, { sha256: artifact.sha256, bytes: artifact.bytes }, "transcript");
  if (row.patch_artifact !== null) await copyArtifact(shardDir, out, row.patch_artifact, { sha256: row.diff_digest ?? null, bytes: null }, "patch");
  const review = row.review_artifact;
  if (typeof review === "string" && review !== "") await copyArtifact(shardDir, out, review, { sha256: null, bytes: null }, "review artifact");
}

function mergedStatus(shards: readonly Shard[]): SweepStatus {
  if (shards.some((shard) => shard.provenance.status === "aborted")) return "aborted";
  if (shards.some((shard) => shard.provenance.status === "cancelled")) return "cancelled";
  return "complete";
}

function promotionFor(plan: SweepPlan, rows: readonly ResultRow[], status: SweepStatus, now: Date): Promotion | null {
  const identity = plan.identity;
  if (identity.candidate_overlay_digest === null || plan.candidate_overlay === null) return null;
  const arms: Arm[] = identity.arms.filter(isSupportedArm);
  return buildSweepPromotion({
    rows,
    arms,
    thresholds: { metric: identity.promotion.metric as PromotionMetric, minRuns: identity.promotion.min_runs, minImprovementPct: identity.promotion.min_improvement_pct, maxTaskRegressionPct: identity.promotion.max_task_regression_pct },
    model: identity.model,
    effort: identity.effort,
    overlayPath: plan.candidate_overlay,
    overlayDigest: identity.candidate_overlay_digest,
    targetBaseDigests: identity.target_base_digests,
    selectedTasks: identity.task_bindings.map((binding) => TaskBindingSchema.parse(binding)),
    complete: status === "complete",
    now,
  });
}

/**
 * `wfbench merge`: verifies that the shard directories are the N parts of one sweep (one identity digest, one plan,
 * each shard index once, every planned cell exactly once and in the shard its hash names, one model, effort, backend
 * and runtime across rows) before writing anything, then writes into a new `out`: the transcripts, patches and review
 * artifacts (opened without following links, re-digested against their rows), results.jsonl in plan order with the
 * contamination alarm recomputed across shards, the side logs, sweep-plan.json (unsharded), report.md, report.html,
 * report-stats.json and, for a candidate sweep, promotion.json — a shard alone never decides. Throws SweepError
 * (SWEEP_BAD_INPUT) for any refusal.
 */
export async function mergeShards(input: MergeShardsInput): Promise<MergeShardsSummary> {
  if (input.shardDirs.length === 0) throw refuse("merge needs at least one shard directory");
  const shards: Shard[] = [];
  for (const dir of input.shardDirs) shards.push(await readShard(dir));
  const rows = collectRows(shards);
  shards.sort((a, b) => a.index - b.index);
  const lead = shards[0] as Shard;
  const status = mergedStatus(shards);
  const promotion = promotionFor(lead.plan, rows, status, input.now);

  const ownerOf = new Map<string, string>();
  for (const shard of shards) for (const row of shard.rows) ownerOf.set(cellKey(row), shard.dir);
  for (const row of rows) await copyRowArtifacts(row, ownerOf.get(cellKey(row)) as string, null);
  await prepareMergeDir(input.out);
  // Read and digested again while copying: what is written is what was checked, whatever changed in between.
  for (const row of rows) await copyRowArtifacts(row, ownerOf.get(cellKey(row)) as string, input.out);
  for (const name of SIDE_LOGS) {
    const parts: Buffer[] = [];
    for (const shard of shards) {
      const bytes = await readShardFile(shard.dir, name, MAX_ARTIFACT_BYTES);
      if (bytes !== null) parts.push(bytes);
    }
    if (parts.length > 0) await writeFileExclusive(join(input.out, name), Buffer.concat(parts), { mode: 0o600 });
  }
  const plan = buildSweepPlan({ identity: lead.plan.identity, shard: null, candidateOverlay: lead.plan.candidate_overlay, cells: lead.plan.cells });
  await writeFileAtomic(join(input.out, SWEEP_PLAN_FILE), formatSweepPlan(plan), { mode: 0o644 });

  const resultsPath = join(input.out, "results.jsonl");
  const log = await openResultsLog(resultsPath);
  const contamination = createContaminationTracker();
  const merged: ResultRow[] = [];
  try {
    // Each shard saw only its own arms of a task and run: the alarm is folded again over the whole sweep.
    for (const row of rows) {
      const marked = contamination.mark(row);
      await log.append(marked);
      merged.push(marked);
    }
  } finally {
    await log.close();
  }
  const provenance: ReportProvenance = { ...lead.provenance, status };
  const report = renderReport(merged, provenance, { promotion });
  if (!report.ok) throw new SweepError("SWEEP_REPORT_FAILED", `row ${report.error.index} field ${report.error.field}: ${report.error.message}`);
  await writeFileAtomic(join(input.out, REPORT_PROVENANCE_FILE), formatReportProvenance(provenance), { mode: 0o644 });
  let promotionSummary: MergeShardsSummary["promotion"] = null;
  if (promotion !== null) {
    const path = join(input.out, "promotion.json");
    await writeFileAtomic(path, formatPromotionFile(promotion), { mode: 0o644 });
    promotionSummary = { path, decisions: promotion.decisions.map((d) => ({ candidateArm: d.candidate_arm, decision: d.decision })) };
  }
  const reportPath = join(input.out, "report.md");
  await writeFileAtomic(reportPath, report.value, { mode: 0o644 });
  await writeHtmlReport({ outDir: input.out, provenance });
  return { outDir: input.out, resultsPath, reportPath, rows: merged.length, shards: shards.length, status, contaminatedRows: merged.filter((row) => (row.contamination_arms ?? []).length > 0).length, promotion: promotionSummary };
}
