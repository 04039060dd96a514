import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { computeReportStats, findDuplicateCell, formatReportStats, groupReportCells, readResultRows, type PairedComparison, type PairedInterval, type ReportCell, type ReportProvenance } from "@wfbench/bench-report";
import { sha256Hex } from "@wfbench/digest";
import { isDurableFsError, readFileUnderRoot, writeFileAtomic } from "@wfbench/durable-fs";
import { costOfRecord, isValidRow, type Aggregate } from "@wfbench/promotion-gate";
import { checkRelativePath, roundHalfEven } from "@wfbench/pycompat";
import type { ParsedRow } from "@wfbench/result-row";
import { toConversation } from "./conversation.js";
import { ReportHtmlError } from "./errors.js";
import { renderHtmlReport, type CellView, type HtmlReportData, type ReviewView, type RunView, type TranscriptView } from "./render-html.js";

/** Largest transcript / patch file read into the page: beyond it the page links to nothing and says so. */
export const MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024;
export const MAX_PATCH_BYTES = 4 * 1024 * 1024;
const MAX_PATCH_CHARS = 200_000;

/** What report.html shows and where it goes. */
export interface WriteHtmlReportOptions {
  /** The sweep's output directory: results.jsonl, transcripts/ and the patches, as the sweep wrote them. */
  readonly outDir: string;
  /** The same provenance report.md was rendered with. */
  readonly provenance: ReportProvenance;
}

/** Where the files went and what they hold. */
export interface WriteHtmlReportResult {
  readonly htmlPath: string;
  readonly statsPath: string;
  readonly rows: number;
  readonly htmlBytes: number;
}

/** The pinned ECharts bundle from node_modules (resolved next to this package, never fetched). */
async function loadChartLibrary(): Promise<string> {
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve("echarts/dist/echarts.min.js");
    return await readFile(path, "utf8");
  } catch (error) {
    throw new ReportHtmlError("REPORT_HTML_ASSET_MISSING", "cannot read echarts/dist/echarts.min.js: run `npm ci` so @wfbench/report-html's pinned echarts is installed", { cause: error });
  }
}

/** Reads one artefact the row names, inside outDir only, without following links; a refusal is a message, not a throw. */
async function readArtefact(outDir: string, path: string, maxBytes: number): Promise<{ bytes: Buffer } | { problem: string }> {
  const problem = checkRelativePath(path);
  if (problem !== null) return { problem: `refused path (${problem.rule})` };
  try {
    return { bytes: (await readFileUnderRoot(outDir, path, maxBytes)).bytes };
  } catch (error) {
    if (isDurableFsError(error)) return { problem: `unreadable (${error.code})` };
    throw error;
  }
}

async function runView(outDir: string, row: ParsedRow): Promise<RunView> {
  const transcripts: TranscriptView[] = [];
  for (const artefact of row.transcript_artifacts ?? []) {
    const read = await readArtefact(outDir, artefact.path, MAX_TRANSCRIPT_BYTES);
    if ("problem" in read) {
      transcripts.push({ path: artefact.path, problem: read.problem, items: [] });
      continue;
    }
    const problem = sha256Hex(read.bytes) === artefact.sha256 ? null : "its sha256 differs from the row's record: not the transcript the run produced";
    transcripts.push({ path: artefact.path, problem, items: toConversation(read.bytes.toString("utf8")) });
  }
  let patch: string | null = null;
  const patchPath = row.patch_artifact ?? null;
  if (patchPath !== null) {
    const read = await readArtefact(outDir, patchPath, MAX_PATCH_BYTES);
    const text = "problem" in read ? `(${read.problem})` : read.bytes.toString("utf8");
    patch = text.length > MAX_PATCH_CHARS ? `${text.slice(0, MAX_PATCH_CHARS)}\n… (truncated; the full patch is ${patchPath})` : text;
  }
  return { run: row.run ?? 0, resolved: row.resolved === true, error_kind: row.error_kind ?? null, cost_usd: shown(costOfRecord(row), 4), duration_s: shown(row.duration_s, 1), num_turns: shown(row.num_turns, 0), transcripts, patch_path: patchPath, patch };
}

/**
 * A figure as the page shows it: rounded here, as Python's `%.Nf` rounds (exact ties to even), to the digits the page
 * prints, so the browser's toFixed has no tie left to round up and the page says what report.md says. Null stays null.
 */
function shown(value: unknown, digits: number): number | null {
  return typeof value === "number" && Number.isFinite(value) ? roundHalfEven(value, digits) : null;
}

/** A cell's median, or null when some valid run left it unmeasured (its 0-filled median is not a figure). */
function median(cell: ReportCell, field: "duration_s" | "num_turns" | "output_tokens", digits: number): number | null {
  return cell.unmeasured.has(field) ? null : shown(cell.aggregate[field], digits);
}

function shownInterval(value: PairedInterval, digits: number): PairedInterval {
  return { estimate: shown(value.estimate, digits), low: shown(value.low, digits), high: shown(value.high, digits) };
}

/** A comparison with its intervals rounded to the digits the page prints (report-stats.json keeps them whole). */
function shownComparison(c: PairedComparison): PairedComparison {
  return { ...c, cost_usd: shownInterval(c.cost_usd, 4), duration_s: shownInterval(c.duration_s, 1), num_turns: shownInterval(c.num_turns, 1), resolve_rate_diff: shownInterval(c.resolve_rate_diff, 2) };
}

function errorSummary(a: Aggregate): string {
  return Object.keys(a.error_kinds)
    .sort()
    .map((kind) => `${kind}\u00d7${a.error_kinds[kind] ?? 0}`)
    .join(", ");
}

/** The page's data from rows already read through the row contract; reads only the artefacts the rows name. */
async function buildData(outDir: string, rows: readonly ParsedRow[], provenance: ReportProvenance): Promise<HtmlReportData> {
  const cells: CellView[] = [];
  const review: ReviewView[] = [];
  // The same cells in the same order as report.md (first-seen, whatever the task ids look like).
  for (const { cells: arms } of groupReportCells(rows)) {
    for (const cell of arms) {
      const { task, arm, aggregate: a } = cell;
      const runs: RunView[] = [];
      for (const row of cell.rows) runs.push(await runView(outDir, row));
      cells.push({ task, class: a.class, arm, resolved: a.resolved, valid_runs: a.valid_runs, excluded_runs: a.excluded_runs, cost_usd: shown(a.cost_usd, 4), cli_cost_usd: shown(a.cli_cost_usd, 4), duration_s: median(cell, "duration_s", 1), num_turns: median(cell, "num_turns", 0), output_tokens: median(cell, "output_tokens", 0), errors: errorSummary(a), runs });
      if ("review_clean_control" in a) {
        review.push({ task, arm, tp: shown(a.review_true_positives, 1), fp: shown(a.review_false_positives, 1), fn: shown(a.review_false_negatives, 1), precision: shown(a.review_precision, 3), recall: shown(a.review_recall, 3), blocker_recall: shown(a.review_blocker_recall, 3), weighted_f1: shown(a.review_weighted_f1, 3), grounding: shown(a.review_grounded_evidence, 3) });
      }
    }
  }
  const notes: string[] = [];
  // First, like report.md's banner: read from the rows, so a re-rendered page says it too.
  if (rows.some((row) => row.sandbox_backend === "host-unsafe")) notes.push("HOST-UNSAFE, no security boundary: these cells ran with --unsafe-no-bwrap, directly on the host as the harness user (the read-only workspace only emulated with file modes). Local review comparisons only; never promotion or CI evidence.");
  if (provenance.upstream === "scripted") notes.push("Scripted demo model: every session was played by the embedded scripted model, not a language model. The numbers prove the pipeline, not any skill.");
  if (provenance.status !== "complete") notes.push(`Sweep ${provenance.status}: partial evidence; promotion is disabled.`);
  const excluded = rows.filter((row) => !isValidRow(row)).length;
  if (excluded > 0) notes.push(`${excluded} run(s) were excluded from the medians (session/infra errors or unverifiable evidence).`);
  const provenanceLines: [string, string][] = [
    ["Benchmark model", provenance.benchmarkModel],
    ["Proposer model", provenance.proposerModel ?? "none"],
    ["Reasoning effort", provenance.effort],
    ["Model upstream", provenance.upstream],
    ["Claude Code CLI", provenance.claudeCodeVersion ?? "unknown"],
    [`Selected tasks (${provenance.selectedTasks.length})`, provenance.selectedTasks.join(", ")],
    [`Skipped expensive tasks (${provenance.skippedExpensiveTasks.length})`, provenance.skippedExpensiveTasks.join(", ") || "none"],
    ["Sweep status", provenance.status],
    ["Rows", String(rows.length)],
  ];
  if (provenance.upstreamCanary != null) provenanceLines.push(["Upstream canary", provenance.upstreamCanary]);
  const cePlugins = [...new Set(rows.filter((row) => typeof row.ce_plugin_version === "string").map((row) => `${String(row.ce_plugin_version)} (${String(row.ce_plugin_manifest_digest)})`))];
  if (cePlugins.length > 0) provenanceLines.push(["Compound Engineering plugin", cePlugins.join(", ")]);
  return { title: "wfbench workflow benchmark", notes, cells, comparisons: computeReportStats(rows).comparisons.map(shownComparison), review, provenance: provenanceLines };
}

/**
 * Writes report.html (one self-contained page: charts, tables, drill-down to each run's transcript and patch) and
 * report-stats.json (the paired statistics, canonical JSON) into `outDir`, from its results.jsonl through the row
 * contract. Trusts the sweep's stored (already redacted) artefacts only as text: a path a row names outside outDir,
 * a link, or bytes whose sha256 differs from the row are shown as refused, never followed or rendered as the run's.
 * @throws {ReportHtmlError} REPORT_HTML_READ_FAILED (results.jsonl unreadable or a row refused; cause attached),
 *   REPORT_HTML_ASSET_MISSING (the pinned chart bundle is not installed), REPORT_HTML_WRITE_FAILED.
 */
export async function writeHtmlReport(options: WriteHtmlReportOptions): Promise<WriteHtmlReportResult> {
  let rows: readonly ParsedRow[];
  try {
    rows = (await readResultRows(join(options.outDir, "results.jsonl"))).rows;
  } catch (error) {
    throw new ReportHtmlError("REPORT_HTML_READ_FAILED", `cannot read ${join(options.outDir, "results.jsonl")}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // report.md refuses the same: a cell counted twice would be weighed twice in every figure on the page.
  const duplicate = findDuplicateCell(rows);
  if (duplicate !== null) throw new ReportHtmlError("REPORT_HTML_READ_FAILED", `${join(options.outDir, "results.jsonl")} row ${duplicate.index} field ${duplicate.field}: ${duplicate.message}`);
  const html = renderHtmlReport(await buildData(options.outDir, rows, options.provenance), await loadChartLibrary());
  const htmlPath = join(options.outDir, "report.html");
  const statsPath = join(options.outDir, "report-stats.json");
  try {
    await writeFileAtomic(statsPath, formatReportStats(computeReportStats(rows)), { mode: 0o644 });
    await writeFileAtomic(htmlPath, html, { mode: 0o644 });
  } catch (error) {
    throw new ReportHtmlError("REPORT_HTML_WRITE_FAILED", `cannot write report.html / report-stats.json in ${options.outDir}`, { cause: error });
  }
  return { htmlPath, statsPath, rows: rows.length, htmlBytes: Buffer.byteLength(html) };
}
