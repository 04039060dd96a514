// report.html in a real browser: the demo sweep through the real runner writes it, headless Debian chromium opens it
// from file://, and the test checks the charts drew, the drill-down shows a transcript and a patch, nothing but the file
// itself was requested, and a screenshot is not blank. A hostile transcript must render as text.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inflateSync } from "node:zlib";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReportProvenance } from "@wfbench/bench-report";
import { writeHtmlReport } from "@wfbench/report-html";
import { REPO_ROOT, probeRunnerTools, runRunner } from "./support/runner-harness.js";

const CHROMIUM = "/usr/bin/chromium";
const tools = await probeRunnerTools(import.meta.url);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && !tools.required) process.stderr.write(`report-html.int.test.ts skipped (set CI=true to make this a failure): no ${CHROMIUM}\n`);
const skip = tools.skip || (!hasChromium && !tools.required);
const SCREENSHOTS = join(REPO_ROOT, "apps/runner/test-results/report-html");
const FIXTURE = join(REPO_ROOT, "apps/runner/test/fixtures/hostile-report");
const HOSTILE = "</script><img src=x onerror=alert(1)>";

/** Decodes an 8-bit RGB(A), non-interlaced PNG (what chromium writes) into its distinct colours and non-white share. */
function pngStats(png: Buffer): { width: number; height: number; colours: number; nonWhite: number } {
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString("latin1");
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      expect(body[8], "bit depth").toBe(8);
      expect(body[12], "interlace").toBe(0);
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
      expect(channels, "colour type").toBeGreaterThan(0);
    }
    if (type === "IDAT") idat.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)] ?? 0;
    for (let x = 0; x < stride; x += 1) {
      const value = raw[y * (stride + 1) + 1 + x] ?? 0;
      const left = x >= channels ? (pixels[y * stride + x - channels] ?? 0) : 0;
      const up = y > 0 ? (pixels[(y - 1) * stride + x] ?? 0) : 0;
      const upLeft = x >= channels && y > 0 ? (pixels[(y - 1) * stride + x - channels] ?? 0) : 0;
      const paeth = (): number => {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      };
      const predictor = [0, left, up, (left + up) >> 1, paeth()][filter] ?? 0;
      pixels[y * stride + x] = (value + predictor) & 0xff;
    }
  }
  const colours = new Set<number>();
  let nonWhite = 0;
  for (let i = 0; i < pixels.length; i += channels) {
    const [r, g, b] = [pixels[i] ?? 0, pixels[i + 1] ?? 0, pixels[i + 2] ?? 0];
    colours.add((r << 16) | (g << 8) | b);
    if (r < 240 || g < 240 || b < 240) nonWhite += 1;
  }
  return { width, height, colours: colours.size, nonWhite: nonWhite / (width * height) };
}

/** Opens a file:// page recording every request; anything but the page itself is aborted and reported. */
async function open(browser: Browser, htmlPath: string): Promise<{ page: Page; requests: string[]; dialogs: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(htmlPath).href;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];
  await page.route("**", async (route) => {
    requests.push(route.request().url());
    await (route.request().url() === url ? route.continue() : route.abort());
  });
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  return { page, requests, dialogs, errors };
}

let browser: Browser | null = null;
const dirs: string[] = [];
let demoOut = "";

beforeAll(async () => {
  if (skip) return;
  expect(hasChromium, `${CHROMIUM} is required under CI=true (Debian package chromium; .ci/run installs it)`).toBe(true);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"] });
  demoOut = join(mkdtempSync(join(tmpdir(), "wfbench-html-")), "out");
  dirs.push(join(demoOut, ".."));
  const result = await runRunner(["--out", demoOut, "--repeats", "1"]);
  expect(result.code, `exit ${String(result.code)}\n${result.stdout}\n${result.stderr}`).toBe(0);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("report.html in headless chromium", () => {
  it("shows the demo sweep's charts and tables, drills into a transcript and a patch, and requests nothing else", async () => {
    const stats = JSON.parse(readFileSync(join(demoOut, "report-stats.json"), "utf8")) as { comparisons: { arm: string; reference: string; pairs: number }[] };
    expect(stats.comparisons.some((c) => c.arm === "workflow" && c.reference === "baseline" && c.pairs === 1)).toBe(true);
    const report = readFileSync(join(demoOut, "report.md"), "utf8");
    expect(report).toContain("## Paired comparisons");
    // Wall time with one decimal (the demo's cells take about a second each).
    expect(report).toMatch(/\| demo-clamp \| trivial \| baseline \| 0\/1 \|[^\n]*\| \d+\.\d \| \d+ \| 1\/\+5\//);

    const { page, requests, dialogs, errors } = await open(browser as Browser, join(demoOut, "report.html"));
    for (const id of ["chart-cost-resolve", "chart-delta-cost_usd", "chart-delta-duration_s", "chart-delta-num_turns"]) {
      const shapes = await page.locator(`#${id} svg path, #${id} svg circle, #${id} svg rect`).count();
      expect(shapes, id).toBeGreaterThan(3);
    }
    expect(await page.locator("table").first().locator("tbody tr").count()).toBe(12);
    await page.locator("td[data-cell]", { hasText: "workflow" }).first().click();
    await page.waitForSelector("#drill .conversation .msg");
    expect(await page.locator("#drill h2").textContent()).toBe("Runs of demo-clamp / workflow");
    expect(await page.locator("#drill .msg.tool_use").count()).toBeGreaterThan(0);
    expect(await page.locator("#drill .msg.skill").count(), "the Skill call is highlighted").toBeGreaterThan(0);
    expect(await page.locator("#drill pre.patch").textContent()).toContain("diff --git");

    mkdirSync(SCREENSHOTS, { recursive: true });
    const shot = await page.screenshot({ path: join(SCREENSHOTS, "demo-report.png"), fullPage: true });
    const png = pngStats(shot);
    expect(png.colours, "distinct colours in the screenshot").toBeGreaterThan(50);
    expect(png.nonWhite, "share of non-white pixels").toBeGreaterThan(0.02);

    expect(requests).toEqual([pathToFileURL(join(demoOut, "report.html")).href]);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("renders a transcript and a patch full of markup as text: no element, no script, no dialog", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "wfbench-html-hostile-")), "out");
    dirs.push(join(out, ".."));
    cpSync(demoOut, out, { recursive: true });
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter((line) => line !== "");
    const rows = lines.map((line) => JSON.parse(line) as { arm: string; transcript_artifacts: { path: string; sha256: string; bytes: number }[]; patch_artifact: string | null });
    const target = rows.find((row) => row.arm === "baseline");
    const artefact = target?.transcript_artifacts[0];
    expect(artefact).toBeDefined();
    const hostile = readFileSync(join(FIXTURE, "transcript.jsonl"));
    writeFileSync(join(out, artefact?.path ?? ""), hostile);
    if (artefact !== undefined) Object.assign(artefact, { sha256: createHash("sha256").update(hostile).digest("hex"), bytes: hostile.length });
    writeFileSync(join(out, target?.patch_artifact ?? "missing.patch"), readFileSync(join(FIXTURE, "patch.diff")));
    // Rows that point outside the sweep, through a link, or at bytes that are not the run's: shown as refused, never read.
    writeFileSync(join(out, "..", "outside.jsonl"), "SECRET-OUTSIDE\n");
    symlinkSync(join(out, "..", "outside.jsonl"), join(out, "transcripts", "link.jsonl"));
    const direct = rows.find((row) => row.arm === "workflow_direct");
    if (direct?.transcript_artifacts[0] !== undefined) direct.transcript_artifacts[0].path = "../outside.jsonl";
    const workflow = rows.find((row) => row.arm === "workflow");
    if (workflow?.transcript_artifacts[0] !== undefined) workflow.transcript_artifacts[0].path = "transcripts/link.jsonl";
    if (workflow?.transcript_artifacts[1] !== undefined) writeFileSync(join(out, workflow.transcript_artifacts[1].path), `${JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: "swapped" }] } })}\n`);
    writeFileSync(join(out, "results.jsonl"), rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
    await writeHtmlReport({ outDir: out, provenance: { benchmarkModel: HOSTILE, proposerModel: null, effort: "high", selectedTasks: [HOSTILE], skippedExpensiveTasks: [], upstream: "scripted", claudeCodeVersion: null, status: "complete" } });

    const { page, requests, dialogs, errors } = await open(browser as Browser, join(out, "report.html"));
    await page.locator("td[data-cell]", { hasText: "baseline" }).first().click();
    await page.waitForSelector("#drill .conversation .msg");
    const drill = (await page.locator("#drill").textContent()) ?? "";
    expect(drill).toContain(`I will now say ${HOSTILE}`);
    expect(drill).toContain("<script>window.__pwned = 1</script>");
    expect(await page.locator("#drill .msg.skill").count()).toBe(2);
    expect(await page.locator("#drill pre.patch").textContent()).toContain(HOSTILE);
    expect(await page.locator("body").textContent()).toContain(`Benchmark model: ${HOSTILE}`);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("#app script").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(requests).toEqual([pathToFileURL(join(out, "report.html")).href]);

    await page.locator("td[data-cell]", { hasText: "workflow_direct" }).first().click();
    expect(await page.locator("#drill").textContent()).toContain("refused path (bad-part)");
    await page.locator("td[data-cell]", { hasText: /^workflow$/ }).first().click();
    const workflowDrill = (await page.locator("#drill").textContent()) ?? "";
    expect(workflowDrill).toContain("unreadable (DURABLE_FS_NOT_FOLLOWED)");
    expect(workflowDrill).toContain("its sha256 differs from the row's record");
    expect(readFileSync(join(out, "report.html"), "utf8")).not.toContain("SECRET-OUTSIDE");
    await page.close();
  });
});

// Rows a user edited by hand: markup in every row string they can put there (task id, class, error_detail, model, CE
// plugin version) renders as text and runs nothing; the figures are report.md's (Python's %.Nf rounding, first-seen
// task order); and the CSP refuses any script but the page's own two, so markup that did reach the page could not run.
const ROW_HOSTILE = "</script><img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>";
const TASK = `${ROW_HOSTILE}|t\nx`;
const CLASS = "<b onmouseover=window.__pwned=3>c</b>";
const ROWS_PROVENANCE: ReportProvenance = { benchmarkModel: ROW_HOSTILE, proposerModel: null, effort: "high", selectedTasks: [TASK], skippedExpensiveTasks: [], upstream: "anthropic", claudeCodeVersion: null, status: "complete" };

function hostileRow(task: string, arm: string, run: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { task, class: CLASS, arm, run, resolved: true, ok: true, error_kind: null, error_detail: null, transcript_missing: false, input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 50, cost_usd: 0.03125, wire_cost_usd: 0.03125, duration_s: 0.25, num_turns: 2, diff_files: 1, diff_insertions: 1, diff_deletions: 0, model: ROW_HOSTILE, ...overrides };
}

const ROWS = [
  hostileRow("zeta", "baseline", 0),
  hostileRow("10", "baseline", 0),
  hostileRow("2", "baseline", 0, { num_turns: 3 }),
  hostileRow("2", "baseline", 1),
  hostileRow(TASK, "baseline", 0, { resolved: false, ok: true, error_kind: "verify-failed", error_detail: ROW_HOSTILE }),
  hostileRow(TASK, "workflow", 0),
  hostileRow(TASK, "ce_review", 0, { ce_plugin_version: ROW_HOSTILE, ce_plugin_manifest_digest: ROW_HOSTILE }),
];

const pwned = (page: Page): Promise<unknown> => page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned);

describe.skipIf(skip)("report.html from a hand-edited results.jsonl in headless chromium", () => {
  let rowsOut = "";
  beforeAll(async () => {
    rowsOut = mkdtempSync(join(tmpdir(), "wfbench-html-rows-"));
    dirs.push(rowsOut);
    writeFileSync(join(rowsOut, "results.jsonl"), ROWS.map((r) => `${JSON.stringify(r)}\n`).join(""));
    await writeHtmlReport({ outDir: rowsOut, provenance: ROWS_PROVENANCE });
  });

  it("renders markup in task ids, classes, error details, models and plugin versions as text, and runs none of it", async () => {
    const { page, requests, dialogs, errors } = await open(browser as Browser, join(rowsOut, "report.html"));
    const body = (await page.locator("body").textContent()) ?? "";
    expect(body).toContain(TASK);
    expect(body).toContain(CLASS);
    expect(body).toContain(`Benchmark model: ${ROW_HOSTILE}`);
    expect(body).toContain(`Compound Engineering plugin: ${ROW_HOSTILE} (${ROW_HOSTILE})`);
    await page.locator("td[data-cell]", { hasText: "verify-failed" }).first().click();
    expect(await page.locator("#drill h2").textContent()).toBe(`Runs of ${TASK} / baseline`);
    await page.locator("#chart-cost-resolve svg").first().hover();
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("b").count()).toBe(0);
    expect(await page.locator("#app script").count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(requests).toEqual([pathToFileURL(join(rowsOut, "report.html")).href]);
    await page.close();
  });

  it("shows report.md's figures in report.md's order: first-seen tasks, Python's %.Nf rounding, medians of even counts", async () => {
    const { page } = await open(browser as Browser, join(rowsOut, "report.html"));
    const main = page.locator("table").first().locator("tbody tr");
    const firstCells = await main.evaluateAll((trs) => trs.map((tr) => tr.querySelector("td")?.textContent ?? ""));
    expect(firstCells).toEqual(["zeta", "10", "2", TASK, TASK, TASK]);
    // python3 -c "print('%.4f' % 0.03125, '%.1f' % 0.25, '%.0f' % 2.5)"  ->  0.0312 0.2 2
    const two = await main.nth(2).locator("td").allTextContents();
    expect(two.slice(4, 8)).toEqual(["0.0312", "0.0312", "0.2", "2"]);
    await page.close();
  });

  it("lets only its own two scripts run: markup spliced into the page is refused by the CSP while the charts still draw", async () => {
    const html = readFileSync(join(rowsOut, "report.html"), "utf8");
    const spliced = html.replace('<main id="app"></main>', `<main id="app"></main><img src="data:," onerror="window.__pwned=1"><script>window.__pwned=2</script>`);
    writeFileSync(join(rowsOut, "spliced.html"), spliced);
    const { page } = await open(browser as Browser, join(rowsOut, "spliced.html"));
    expect(await pwned(page)).toBeUndefined();
    expect(await page.locator("#chart-cost-resolve svg path, #chart-cost-resolve svg circle").count()).toBeGreaterThan(3);
    await page.close();
  });
});
