import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ReportProvenance } from "@wfbench/bench-report";
import type { HtmlReportData } from "./render-html.js";
import { writeHtmlReport } from "./write-html-report.js";

const PROVENANCE: ReportProvenance = { benchmarkModel: "m", proposerModel: null, effort: "high", selectedTasks: [], skippedExpensiveTasks: [], upstream: "anthropic", claudeCodeVersion: null, status: "complete" };

function row(task: string, arm: string, run: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { task, class: "c", arm, run, resolved: true, error_kind: null, transcript_missing: false, input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 50, cost_usd: 0.03125, wire_cost_usd: 0.03125, duration_s: 0.25, num_turns: 2, diff_files: 0, diff_insertions: 0, diff_deletions: 0, ...overrides };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function pageData(rows: readonly Record<string, unknown>[]): Promise<HtmlReportData> {
  const out = mkdtempSync(join(tmpdir(), "wfbench-html-unit-"));
  dirs.push(out);
  writeFileSync(join(out, "results.jsonl"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const { htmlPath } = await writeHtmlReport({ outDir: out, provenance: PROVENANCE });
  const json = /<script type="application\/json" id="wfbench-data">([^<]*)<\/script>/.exec(readFileSync(htmlPath, "utf8"))?.[1] ?? "null";
  return JSON.parse(json) as HtmlReportData;
}

describe("writeHtmlReport", () => {
  it("lists cells in first-seen order whatever the task ids look like", async () => {
    const data = await pageData(["zeta", "10", "2", "__proto__"].map((task) => row(task, "baseline", 0)));
    expect(data.cells.map((c) => c.task)).toEqual(["zeta", "10", "2", "__proto__"]);
  });

  // python3 -c "print('%.4f' % 0.03125, '%.1f' % 0.25, '%.0f' % 2.5)" -> 0.0312 0.2 2: the page's toFixed must agree.
  it.each([
    ["cost_usd", 0.0312],
    ["cli_cost_usd", 0.0312],
    ["duration_s", 0.2],
    ["num_turns", 2],
  ] as const)("hands the page %s already rounded as report.md rounds it (%s)", async (field, expected) => {
    const data = await pageData([row("t", "baseline", 0), row("t", "baseline", 1, { num_turns: 3 })]);
    expect(data.cells[0]?.[field]).toBe(expected);
    expect(data.cells[0]?.runs[0]?.cost_usd).toBe(0.0312);
  });

  it("shows n/a (null) for a median some valid run left unmeasured, never its 0-filled figure", async () => {
    const data = await pageData([row("t", "baseline", 0), row("t", "baseline", 1, { output_tokens: null }), row("t", "baseline", 2, { output_tokens: 70 })]);
    expect(data.cells[0]?.output_tokens).toBeNull();
  });

  it("refuses a duplicated cell, as report.md does", async () => {
    await expect(pageData([row("t", "baseline", 0), row("t", "baseline", 0)])).rejects.toMatchObject({ code: "REPORT_HTML_READ_FAILED", message: expect.stringContaining("row 1 field run") as unknown });
  });

  it("lets only its own two scripts run (by hash, no 'unsafe-inline')", async () => {
    const out = mkdtempSync(join(tmpdir(), "wfbench-html-unit-"));
    dirs.push(out);
    writeFileSync(join(out, "results.jsonl"), `${JSON.stringify(row("t", "baseline", 0))}\n`);
    const html = readFileSync((await writeHtmlReport({ outDir: out, provenance: PROVENANCE })).htmlPath, "utf8");
    expect(/script-src ('sha256-[A-Za-z0-9+/]+=*' ?){2};/.test(html)).toBe(true);
    expect(html).not.toContain("script-src 'unsafe-inline'");
  });
});
