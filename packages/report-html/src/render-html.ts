import { createHash } from "node:crypto";
import type { PairedComparison } from "@wfbench/bench-report";
import type { ConversationItem } from "./conversation.js";
import { PAGE_SCRIPT } from "./page-script.js";

/** One transcript of a run, ready to show. `problem` says why it may not be what the row recorded. */
export interface TranscriptView {
  readonly path: string;
  readonly problem: string | null;
  readonly items: readonly ConversationItem[];
}

/** One run of a task × arm cell. */
export interface RunView {
  readonly run: number;
  readonly resolved: boolean;
  readonly error_kind: string | null;
  readonly cost_usd: number | null;
  readonly duration_s: number | null;
  readonly num_turns: number | null;
  readonly transcripts: readonly TranscriptView[];
  readonly patch_path: string | null;
  readonly patch: string | null;
}

/** One task × arm line of the main table, with its runs for the drill-down. */
export interface CellView {
  readonly task: string;
  readonly class: string;
  readonly arm: string;
  readonly resolved: number;
  readonly valid_runs: number;
  readonly excluded_runs: number;
  readonly cost_usd: number | null;
  readonly cli_cost_usd: number | null;
  readonly duration_s: number | null;
  readonly num_turns: number | null;
  readonly output_tokens: number | null;
  readonly errors: string;
  readonly runs: readonly RunView[];
}

/** One line of the review quality table. */
export interface ReviewView {
  readonly task: string;
  readonly arm: string;
  readonly tp: number | null;
  readonly fp: number | null;
  readonly fn: number | null;
  readonly precision: number | null;
  readonly recall: number | null;
  readonly blocker_recall: number | null;
  readonly weighted_f1: number | null;
  readonly grounding: number | null;
}

/** Everything the page shows, embedded as JSON. */
export interface HtmlReportData {
  readonly title: string;
  readonly notes: readonly string[];
  readonly cells: readonly CellView[];
  readonly comparisons: readonly PairedComparison[];
  readonly review: readonly ReviewView[];
  readonly provenance: readonly (readonly [string, string])[];
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1200px; padding: 0 1rem; color: #1d2330; background: #fff; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #d5d9e0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid #d5d9e0; padding: 3px 6px; text-align: left; }
th { background: #eef1f5; } tbody tr[data-cell] { cursor: pointer; } tbody tr[data-cell]:hover { background: #f3f7ff; }
.chart { width: 100%; height: 340px; } .note { background: #fff6d6; border-left: 4px solid #e0b000; padding: .5rem; }
.hint { color: #556; } .runs button { margin: 0 .3rem .3rem 0; } .runs button.active { font-weight: bold; }
.conversation { display: flex; flex-direction: column; gap: .4rem; }
.msg { border: 1px solid #d5d9e0; border-radius: 6px; padding: .3rem .6rem; max-width: 90%; }
.msg.assistant { align-self: flex-start; background: #f4f8ff; } .msg.user { align-self: flex-end; background: #f6f6f6; }
.msg.system, .msg.result { align-self: center; background: #fafafa; font-size: .9em; }
.msg.tool_use { border-color: #7a8db3; } .msg.tool_result { border-style: dashed; }
.msg.skill { background: #e9fbe9; border: 2px solid #2e9d3a; } .msg.error { border-color: #c33; }
.label { font-size: .8em; color: #556; text-transform: uppercase; letter-spacing: .03em; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; font: 12px/1.4 ui-monospace, monospace; }
pre.patch { background: #f7f7f7; border: 1px solid #ddd; padding: .5rem; }
`;

/** JSON safe inside a `<script>` element: every `<`, `>` and `&` is a \\u escape, so no row text can close the element. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function inlineScript(source: string, what: string): string {
  // A library bundle that contained these could end the element early; refuse rather than ship a broken page.
  if (/<\/script|<!--/i.test(source)) throw new RangeError(`${what} contains "</script" or "<!--" and cannot be inlined`);
  return `<script>${source}</script>`;
}

/** The CSP source that allows exactly this inline script's text to run. */
function scriptHash(source: string): string {
  return `'sha256-${createHash("sha256").update(source, "utf8").digest("base64")}'`;
}

/**
 * The whole report.html: one self-contained page (styles, the chart library and the page script inlined; a CSP that
 * forbids every fetch and runs only those two scripts, by hash) showing `data`. Pure; trusts `chartLibrary` to be the
 * pinned ECharts bundle, and no string in `data` (embedded as escaped JSON, rendered with textContent).
 */
export function renderHtmlReport(data: HtmlReportData, chartLibrary: string): string {
  // Only the two scripts written here may run (by hash, not 'unsafe-inline'): were row text ever to become markup,
  // an injected <script> or onerror= handler would still be refused by the browser.
  const scripts = `${scriptHash(chartLibrary)} ${scriptHash(PAGE_SCRIPT)}`;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${scripts}; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>wfbench report</title>",
    `<style>${STYLE}</style></head><body><main id="app"></main>`,
    `<script type="application/json" id="wfbench-data">${embedJson(data)}</script>`,
    inlineScript(chartLibrary, "the chart library"),
    inlineScript(PAGE_SCRIPT, "the page script"),
    "</body></html>",
    "",
  ].join("\n");
}
