import { isValidRow, type Aggregate, type ImplementationDecision, type Promotion, type ReviewDecision, type RowRefusal } from "@wfbench/promotion-gate";
import { median, roundHalfEven } from "@wfbench/pycompat";
import { COST_DISAGREEMENT_THRESHOLD, parseResultRow, type ParsedRow } from "@wfbench/result-row";
import { flattenLines, formatFixed, markdownCode, markdownText } from "./format-text.js";
import { findDuplicateCell, groupReportCells, type ReportCell, type ReportTask } from "./group-cells.js";
import { computeReportStats, DETECTABLE_COST_DIFFERENCE, type PairedComparison, type PairedInterval, type ReportStats } from "./paired-stats.js";

/** How the sweep ended; anything but `complete` disables promotion and says so in the report. */
export type SweepStatus = "complete" | "aborted" | "cancelled";

/** Facts for the `## Run provenance` section (reference §4.4 item 6) plus the model upstream. */
export interface ReportProvenance {
  readonly benchmarkModel: string;
  readonly proposerModel: string | null;
  readonly effort: string;
  readonly selectedTasks: readonly string[];
  readonly skippedExpensiveTasks: readonly string[];
  /** `scripted`, `anthropic`, … */
  readonly upstream: string;
  readonly claudeCodeVersion: string | null;
  readonly status: SweepStatus;
  /** The pre-sweep upstream canary's verdict (e.g. `ok (HTTP 200)`); absent or null when none ran (scripted model). */
  readonly upstreamCanary?: string | null;
  /** `--reuse-results`: the source directory, how many cells were copied from it and how many were paid for. */
  readonly reuse?: { readonly source: string; readonly reusedCells: number; readonly paidCells: number };
}

/** What else report.md shows besides the rows. */
export interface RenderReportOptions {
  /** The sweep's promotion.json, when candidate arms ran: adds the `## Promotion` section at the end. */
  readonly promotion?: Promotion | null;
}

/** Result of rendering. */
export type RenderReportResult = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: RowRefusal };

const MINUS = "\u2212";
const WIRE_FIELDS = ["wire_requests", "wire_input_tokens", "wire_cache_creation_input_tokens", "wire_cache_read_input_tokens", "wire_output_tokens"] as const;

function fixed0(value: number): string {
  return formatFixed(value, 0);
}

/** Wall time: one decimal everywhere (a demo cell takes about a second; whole seconds hid every difference). */
function fixed1(value: number): string {
  return formatFixed(value, 1);
}

function cost(value: number | null | undefined): string {
  return value === null || value === undefined ? "n/a" : formatFixed(value, 4);
}

function savings(base: number | null, arm: number | null): number | null {
  if (base === null || arm === null) return null;
  if (base === 0) return 0;
  return roundHalfEven((100 * (base - arm)) / base, 1);
}

function pct(value: number | null): string {
  return value === null ? "n/a" : formatFixed(value, 1);
}

function errors(aggregate: Aggregate): string {
  return Object.keys(aggregate.error_kinds)
    .sort()
    .map((kind) => `${kind}\u00d7${aggregate.error_kinds[kind] ?? 0}`)
    .join(", ");
}

type ShownMetric = "input_tokens" | "cache_creation_input_tokens" | "cache_read_input_tokens" | "output_tokens" | "cost_usd" | "cli_cost_usd" | "duration_s" | "num_turns" | "diff_files" | "diff_insertions" | "diff_deletions";

/** A cell's figure for one metric: null when unpriced (cost) or when some valid run left it unmeasured (never its 0-filled median). */
function shown(cell: ReportCell, field: ShownMetric): number | null {
  if (field !== "cost_usd" && field !== "cli_cost_usd" && cell.unmeasured.has(field)) return null;
  return cell.aggregate[field] ?? null;
}

function count0(value: number | null): string {
  return value === null ? "n/a" : fixed0(value);
}

function mainRow(cell: ReportCell): string {
  const a = cell.aggregate;
  const resolved = `${a.resolved}/${a.valid_runs}${a.excluded_runs > 0 ? ` (${a.excluded_runs} excluded)` : ""}`;
  const churn = `${count0(shown(cell, "diff_files"))}/+${count0(shown(cell, "diff_insertions"))}/${MINUS}${count0(shown(cell, "diff_deletions"))}`;
  const wall = shown(cell, "duration_s");
  const cells = [markdownText(cell.task), markdownText(a.class), cell.arm, resolved, count0(shown(cell, "input_tokens")), count0(shown(cell, "cache_creation_input_tokens")), count0(shown(cell, "cache_read_input_tokens")), count0(shown(cell, "output_tokens")), cost(a.cost_usd), cost(a.cli_cost_usd), wall === null ? "n/a" : fixed1(wall), count0(shown(cell, "num_turns")), churn, errors(a)];
  return `| ${cells.join(" | ")} |`;
}

function savingsRow(base: ReportCell, cell: ReportCell): string {
  const a = cell.aggregate;
  const metric = (field: ShownMetric): string => pct(savings(shown(base, field), shown(cell, field)));
  // A saving of an arm that did not resolve the task is not a saving: the row says so instead of looking like one.
  const unresolved = a.resolved < a.valid_runs ? ` (not resolved: ${a.resolved}/${a.valid_runs})` : "";
  const cells = [markdownText(cell.task), markdownText(a.class), `**${cell.arm} savings %**${unresolved}`, "\u2014", metric("input_tokens"), metric("cache_creation_input_tokens"), metric("cache_read_input_tokens"), metric("output_tokens"), metric("cost_usd"), metric("cli_cost_usd"), metric("duration_s"), "\u2014", "\u2014", "\u2014"];
  return `| ${cells.join(" | ")} |`;
}

/** The median of values all present, or null when there are none or any is missing (null or absent). */
function medianOfPresent(values: readonly (number | null | undefined)[]): number | null {
  const present = values.filter((value): value is number => typeof value === "number");
  return values.length === 0 || present.length !== values.length ? null : median(present);
}

/** Medians of the gateway's wire fields over the valid rows of one task × arm; null when any row lacks the field. */
function wireMedians(rows: readonly ParsedRow[]): { values: (number | null)[]; cost: number | null } {
  return { values: WIRE_FIELDS.map((field) => medianOfPresent(rows.map((row) => row[field]))), cost: medianOfPresent(rows.map((row) => row.wire_cost_usd)) };
}

function metric3(value: unknown): string {
  return typeof value === "number" && Number.isFinite(value) ? formatFixed(value, 3) : "n/a";
}

function count1(value: unknown): string {
  return typeof value === "number" && Number.isFinite(value) ? formatFixed(value, 1) : "n/a";
}

/**
 * The `## Review quality` table (reference §4.4 item 4): one line per task × arm whose aggregate carries
 * `review_clean_control` (review cells with at least one valid scored row); counts are medians (%.1f), metrics %.3f.
 */
function renderReviewQuality(tasks: readonly ReportTask[]): string[] {
  const rows: string[] = [];
  for (const { cells: arms } of tasks) {
    for (const { task, arm, aggregate: a } of arms) {
      if (!("review_clean_control" in a)) continue;
      const cells = [markdownText(task), arm, count1(a.review_true_positives), count1(a.review_false_positives), count1(a.review_false_negatives), metric3(a.review_precision), metric3(a.review_recall), metric3(a.review_blocker_recall), metric3(a.review_weighted_f1), metric3(a.review_grounded_evidence)];
      rows.push(`| ${cells.join(" | ")} |`);
    }
  }
  if (rows.length === 0) return [];
  return ["## Review quality", "", "| case | arm | TP | FP | FN | precision | recall | blocker recall | weighted F1 | grounding |", "|---|---|---|---|---|---|---|---|---|---|", ...rows];
}

function describeDecision(decision: ImplementationDecision | ReviewDecision): string {
  const improvement = "median_improvement_pct" in decision && decision.median_improvement_pct !== null ? `, median ${decision.metric} improvement ${decision.median_improvement_pct}%` : "";
  return `- \`${decision.candidate_arm}\` vs \`${decision.incumbent_arm}\`: **${decision.decision}**${improvement}${decision.reasons.length > 0 ? ` \u2014 ${decision.reasons.map(markdownText).join("; ")}` : ""}`;
}

/** The `## Promotion` section: the overlay, the run status and each candidate arm's decision with its reasons. */
function renderPromotionSection(promotion: Promotion): string[] {
  return [
    "## Promotion",
    "",
    `Candidate overlay ${markdownCode(promotion.candidate_overlay)} (\`${promotion.candidate_overlay_digest}\`), run status \`${promotion.run_status}\`; decisions written to promotion.json (schema ${promotion.schema_version}).`,
    "",
    ...promotion.decisions.map(describeDecision),
    "",
  ];
}

const OVERHEAD_PHASES = ["materialize", "setup", "verify", "oracle", "capture", "cleanup"] as const;
/** The `timings_ms` key of the task's own commands (cell-pipeline's TASK_COMMANDS_PHASE; it overlaps the phases). */
const TASK_COMMANDS = "task_commands";

function seconds2(ms: number): string {
  return formatFixed(ms / 1000, 2);
}

/**
 * The harness's own time per cell from `timings_ms`: the cell's total minus its sessions' wall time (model time and CLI
 * start-up live inside the sessions), as a median over the cells that recorded timings; then, for the cells that
 * recorded `task_commands`, that figure less the task's own commands (setup, verify, the oracle's runs), which is what
 * the harness itself costs. Nothing when no cell recorded timings.
 */
function renderHarnessOverhead(rows: readonly ParsedRow[]): string[] {
  // This sweep's harness only: a reused row's timings are another sweep's cell (maybe another harness version's).
  const timed = rows.filter((row) => row.reused !== true && row.timings_ms?.["total"] !== undefined);
  if (timed.length === 0) return [];
  const outsideSessions = (timings: Readonly<Record<string, number>>): number => {
    const sessions = Object.entries(timings).filter(([phase]) => phase.startsWith("session_")).reduce((sum, [, ms]) => sum + ms, 0);
    return Math.max(0, (timings["total"] ?? 0) - sessions);
  };
  const overhead = timed.map((row) => outsideSessions(row.timings_ms ?? {}));
  const phases = OVERHEAD_PHASES.map((phase) => `${phase} ${seconds2(median(timed.map((row) => row.timings_ms?.[phase] ?? 0)))} s`);
  // What no phase covers: MCP servers around the sessions, the review workspace checks, the gateway flush, judging.
  const between = timed.map((row) => {
    const timings = row.timings_ms ?? {};
    return Math.max(0, outsideSessions(timings) - OVERHEAD_PHASES.reduce((sum, phase) => sum + (timings[phase] ?? 0), 0));
  });
  const split = timed.filter((row) => row.timings_ms?.[TASK_COMMANDS] !== undefined);
  const own = split.map((row) => Math.max(0, outsideSessions(row.timings_ms ?? {}) - (row.timings_ms?.[TASK_COMMANDS] ?? 0)));
  const ownLine =
    split.length === 0
      ? []
      : [
          `Of that, the task's own commands (its setup, verify and oracle runs, sandbox start-up included: \`${TASK_COMMANDS}\`) take a median of ${seconds2(median(split.map((row) => row.timings_ms?.[TASK_COMMANDS] ?? 0)))} s; the harness's own work (copies, git, digests, staging, cleanup) a median of ${seconds2(median(own))} s per cell (max ${seconds2(Math.max(...own))} s over ${split.length} cell(s)).`,
        ];
  return [
    "## Harness overhead",
    "",
    `Harness overhead: median ${seconds2(median(overhead))} s per cell (max ${seconds2(Math.max(...overhead))} s over ${timed.length} cell(s)): the cell's wall time outside its CLI sessions, so model time and CLI start-up are excluded. Per-phase medians: ${phases.join(", ")}, between phases ${seconds2(median(between))} s (\`timings_ms\` in results.jsonl).`,
    ...ownLine,
    "",
  ];
}

function signed(value: number, digits: number): string {
  const text = formatFixed(value, digits);
  return value > 0 && Number(text) !== 0 ? `+${text}` : text.replace(/^-/, MINUS);
}

function interval(value: PairedInterval, digits: number): string {
  if (value.estimate === null || value.low === null || value.high === null) return "n/a";
  return `${signed(value.estimate, digits)} [${signed(value.low, digits)}, ${signed(value.high, digits)}]`;
}

function comparisonRow(c: PairedComparison): string {
  const resolved = c.arm_resolved < c.pairs ? ` (arm resolved ${c.arm_resolved}/${c.pairs})` : "";
  const cells = [c.task === null ? "**all tasks**" : markdownText(c.task), `${c.arm}${resolved}`, c.reference, String(c.pairs), interval(c.cost_usd, 4), interval(c.duration_s, 1), interval(c.num_turns, 1), interval(c.resolve_rate_diff, 2), c.runs_for_5pct_cost === null ? "n/a" : String(c.runs_for_5pct_cost)];
  return `| ${cells.join(" | ")} |`;
}

/** The `## Paired comparisons` section: bootstrap intervals of each arm against its reference, and run-count hints. */
function renderPairedComparisons(stats: ReportStats): string[] {
  if (stats.comparisons.length === 0) return [];
  return [
    "## Paired comparisons",
    "",
    `Each arm against baseline, and each candidate arm against its incumbent, paired by (task, run) over runs valid on both sides: median of arm \u2212 reference (negative = the arm spent less) with a paired bootstrap 95% interval (${stats.bootstrap.resamples} resamples, fixed seed: reproducible). An interval that contains 0 cannot tell the arms apart. "runs for ${DETECTABLE_COST_DIFFERENCE * 100}% cost" estimates the runs per arm needed to detect a ${DETECTABLE_COST_DIFFERENCE * 100}% cost difference at the observed variance (n/a below 2 pairs). Full figures in report-stats.json.`,
    "",
    "| task | arm | vs | pairs | \u0394 cost $ [95% CI] | \u0394 wall s [95% CI] | \u0394 turns [95% CI] | \u0394 resolve rate [95% CI] | runs for 5% cost |",
    "|---|---|---|---|---|---|---|---|---|",
    ...stats.comparisons.map(comparisonRow),
    "",
  ];
}

// The contamination alarm (reference §5.9): the later row of each pair names the earlier arms; every pair is listed.
function renderContamination(rows: readonly ParsedRow[]): string[] {
  const pairs = rows.flatMap((row) => (row.contamination_arms ?? []).map((earlier) => `${markdownText(row.task)}/run${row.run ?? "?"}: ${markdownText(earlier)} = ${row.arm}`));
  if (pairs.length === 0) return [];
  return [
    `**Contamination alarm:** ${pairs.length} pair(s) of arms left byte-identical non-empty patches in the same task and run, a possible shared-state leak between arms (\`contamination_arms\` and \`diff_digest\` in results.jsonl): ${pairs.join("; ")}. Check that each arm ran in its own clone before trusting the comparison.`,
    "",
  ];
}

/** Parses every row through the row contract; the first refusal names its index and field. */
function parseRows(rawRows: readonly unknown[]): { ok: true; value: ParsedRow[] } | { ok: false; error: RowRefusal } {
  const rows: ParsedRow[] = [];
  for (const [index, raw] of rawRows.entries()) {
    const parsed = parseResultRow(raw);
    if (!parsed.ok) return { ok: false, error: { index, ...parsed.error } };
    rows.push(parsed.value);
  }
  return { ok: true, value: rows };
}

/**
 * Renders report.md (reference §4.4 layout) from results rows read through the row contract: main table of per
 * task × arm medians from @wfbench/promotion-gate's aggregation, savings rows against `baseline`, footers and run
 * provenance, a table of the gateway's per-cell wire usage (every request, subagents and retries included), and the
 * promotion decisions when given. Pure; refuses a row the row contract refuses, or one repeating an earlier row's
 * cell (task, arm, run), naming its index and field.
 */
export function renderReport(rawRows: readonly unknown[], provenance: ReportProvenance, options: RenderReportOptions = {}): RenderReportResult {
  const parsed = parseRows(rawRows);
  if (!parsed.ok) return parsed;
  const duplicate = findDuplicateCell(parsed.value);
  if (duplicate !== null) return { ok: false, error: duplicate };
  const tasks = groupReportCells(parsed.value);
  const lines: string[] = ["# wfbench workflow benchmark", ""];
  // Read from the rows, not the sweep's options, so a re-rendered report (wfbench report) says the same.
  if (parsed.value.some((row) => row.sandbox_backend === "host-unsafe")) {
    lines.push(
      "> **HOST-UNSAFE: no security boundary.** These cells ran with `--unsafe-no-bwrap` (`sandbox_backend: host-unsafe`): every session, verify and oracle ran directly on the host as the harness user, with its files, network and credentials in reach. The read-only workspace was only emulated with file modes, which the agent can undo. Use these numbers for local review comparisons only; they are never promotion or CI evidence.",
      "",
    );
  }
  if (provenance.upstream === "scripted") {
    lines.push(
      "> **Scripted demo model.** Every session below was played by the embedded scripted model (fixed trajectories), not by a language model. The run proves the pipeline (real CLI, sandbox, gateway, evidence, hidden oracle); its numbers say nothing about any skill.",
      "",
    );
  }
  lines.push(
    "Medians across runs (runs excluded for session/infra errors or unverifiable evidence do not count). Savings = (baseline \u2212 arm) / baseline, so a positive number means cheaper than baseline. Churn = files/+insertions/\u2212deletions against the task commit, without `docs/plans` and `.claude/skills`.",
    "",
    "**WARNING:** the token columns come from the CLI's result event and count the main loop only. cost $ is the cost of record: the metering gateway's priced wire usage of every request the cell's token made (subagents, retries and any spend outside the CLI included), which the promotion gate also reads; CLI $ is the CLI's own figure, shown beside it. The gateway table below counts every request on the wire.",
    "",
    "| task | class | arm | resolved | input | cache_create | cache_read | output | cost $ | CLI $ | wall s | turns | churn | errors |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  let excluded = 0;
  let missing = 0;
  for (const { cells } of tasks) {
    const base = cells.find((cell) => cell.arm === "baseline");
    for (const cell of cells) {
      lines.push(mainRow(cell));
      excluded += cell.aggregate.excluded_runs;
      missing += cell.aggregate.transcripts_missing;
    }
    if (base !== undefined) for (const cell of cells) if (cell.arm !== "baseline") lines.push(savingsRow(base, cell));
  }
  lines.push("");
  // Reference §4.4 order: the review quality table sits between the main table and the footers.
  const reviewLines = renderReviewQuality(tasks);
  if (reviewLines.length > 0) lines.push(...reviewLines, "");
  if (excluded > 0) lines.push(`${excluded} run(s) hit session/infra errors or had unverifiable evidence and were excluded from the medians.`, "");
  const unaccounted = parsed.value.filter((row) => (row.wire_unaccounted_requests ?? 0) > 0);
  if (unaccounted.length > 0) lines.push(`${unaccounted.length} run(s) show gateway requests that no readable CLI stream of theirs accounts for (\`wire_unaccounted_requests\` in results.jsonl): spend outside the CLI, or a session whose stream did not parse whole (its row says which); their evidence is unverified.`, "");
  if (missing > 0) lines.push(`${missing} run(s) had no locatable session transcript.`, "");
  const disagreeing = parsed.value.filter((row) => row.cost_disagreement_flagged === true);
  if (disagreeing.length > 0) {
    const named = disagreeing.slice(0, 8).map((row) => `${markdownText(row.task)}/${row.arm}/run${row.run ?? "?"} (${row.cost_disagreement_ratio == null ? "no finite ratio" : `${pct(roundHalfEven(100 * row.cost_disagreement_ratio, 1))}%`})`);
    lines.push(
      `${disagreeing.length} run(s) where the CLI's own cost differs from the cost of record (the gateway's priced wire cost) by more than ${fixed0(100 * COST_DISAGREEMENT_THRESHOLD)}% (\`cost_disagreement_flagged\` in results.jsonl): ${named.join(", ")}${disagreeing.length > 8 ? `, +${disagreeing.length - 8} more` : ""}. cost $ stays the record.`,
      "",
    );
  }
  lines.push(...renderContamination(parsed.value));
  lines.push("Session ids of every run are in results.jsonl (`session_ids`), next to the transcript paths and digests.", "");

  lines.push("## Gateway wire usage", "", "Medians of what the metering gateway saw per cell: every request the cell's token made, priced from the pinned table (n/a = unpriced).", "");
  lines.push("| task | arm | requests | input | cache_create | cache_read | output | wire $ |", "|---|---|---|---|---|---|---|---|");
  for (const { cells } of tasks) {
    for (const { task, arm, rows } of cells) {
      // The same valid rows as the main table's medians (§5.2): an invalid review artifact is out here too.
      const wire = wireMedians(rows.filter(isValidRow));
      lines.push(`| ${[markdownText(task), arm, ...wire.values.map((v) => (v === null ? "n/a" : fixed0(v))), cost(wire.cost)].join(" | ")} |`);
    }
  }
  lines.push("");
  lines.push(...renderPairedComparisons(computeReportStats(parsed.value)));
  lines.push(...renderHarnessOverhead(parsed.value));

  lines.push("## Run provenance", "");
  // Every string here comes from the command line, a task file or a row: code spans sized to hold it, one line each.
  lines.push(`- Benchmark model: ${markdownCode(provenance.benchmarkModel)}${provenance.upstream === "scripted" ? " (served by the scripted demo model)" : ""}`);
  lines.push(`- Proposer model: ${markdownCode(provenance.proposerModel ?? "none")}`);
  lines.push(`- Reasoning effort: ${markdownCode(provenance.effort)}`);
  lines.push(`- Model upstream: ${markdownCode(provenance.upstream)}`);
  // The canary line is the sweep's own Markdown (its outcome in a code span): kept, but on one line.
  if (provenance.upstreamCanary != null) lines.push(`- Upstream canary (1-token request before the first cell): ${flattenLines(provenance.upstreamCanary)}`);
  if (provenance.claudeCodeVersion !== null) lines.push(`- Claude Code CLI: ${markdownCode(provenance.claudeCodeVersion)}`);
  lines.push(`- Selected tasks (${provenance.selectedTasks.length}): ${provenance.selectedTasks.map(markdownText).join(", ")}`);
  lines.push(`- Skipped expensive tasks (${provenance.skippedExpensiveTasks.length}): ${provenance.skippedExpensiveTasks.length === 0 ? "none" : provenance.skippedExpensiveTasks.map(markdownText).join(", ")}`);
  const cePlugins = [...new Set(parsed.value.filter((row) => typeof row.ce_plugin_version === "string").map((row) => `${markdownCode(String(row.ce_plugin_version))} (${markdownCode(String(row.ce_plugin_manifest_digest))})`))];
  if (cePlugins.length > 0) lines.push(`- Compound Engineering plugin: ${cePlugins.join(", ")}`);
  if (provenance.reuse !== undefined) lines.push(`- Comparator reuse: ${provenance.reuse.reusedCells} cell(s) reused from ${markdownCode(provenance.reuse.source)}, ${provenance.reuse.paidCells} paid`);
  if (provenance.status === "aborted") lines.push("", "Sweep aborted: partial evidence; promotion is disabled.");
  if (provenance.status === "cancelled") lines.push("", "Sweep cancelled: partial evidence; promotion is disabled.");
  lines.push("");
  if (options.promotion != null) lines.push(...renderPromotionSection(options.promotion));
  return { ok: true, value: lines.join("\n") };
}
