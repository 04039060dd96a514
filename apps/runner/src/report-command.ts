// `wfbench report`: re-renders the report files of an existing output directory from its results.jsonl.
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { REPORT_PROVENANCE_FILE, parseReportProvenance, readResultsLog, renderReport } from "@wfbench/bench-report";
import { writeFileAtomic } from "@wfbench/durable-fs";
import { PromotionSchema, type Promotion } from "@wfbench/promotion-gate";
import { writeHtmlReport } from "@wfbench/report-html";
import { RunnerError } from "./errors.js";

/** What a re-render wrote, and whether results.jsonl ended in a torn line (skipped). */
export interface RerenderedReport {
  readonly written: readonly string[];
  readonly tornTail: boolean;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Re-renders `<outDir>/report.md`, report.html and report-stats.json from `<outDir>/results.jsonl`, the sweep's report-provenance.json and, when present,
 * its promotion.json; the same renderer as the sweep, so an untouched directory re-renders byte for byte. Refuses
 * (RUNNER_BAD_INPUT) a directory missing those files or holding rows or files the contracts refuse.
 */
export async function rerenderReport(outDirArg: string, cwd: string): Promise<RerenderedReport> {
  const outDir = isAbsolute(outDirArg) ? outDirArg : resolve(cwd, outDirArg);
  const resultsPath = join(outDir, "results.jsonl");
  const dir = await stat(outDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw error;
  });
  if (dir === null || !dir.isDirectory()) throw new RunnerError("RUNNER_BAD_INPUT", `${outDir} ${dir === null ? "does not exist" : "is not a directory"}: pass the output directory of a finished \`wfbench run\``);
  const provenanceText = await readOptional(join(outDir, REPORT_PROVENANCE_FILE));
  if (provenanceText === null) throw new RunnerError("RUNNER_BAD_INPUT", `${outDir} has no ${REPORT_PROVENANCE_FILE}: pass the output directory of a finished \`wfbench run\` (older runners did not write it; re-run the sweep)`);
  const provenance = parseReportProvenance(provenanceText);
  if (!provenance.ok) throw new RunnerError("RUNNER_BAD_INPUT", `${join(outDir, REPORT_PROVENANCE_FILE)} field ${provenance.error.field || "(file)"}: ${provenance.error.message}: restore the file the sweep wrote`);
  if ((await readOptional(resultsPath)) === null) throw new RunnerError("RUNNER_BAD_INPUT", `${outDir} has no results.jsonl: pass the output directory of a \`wfbench run\``);
  const log = await readResultsLog(resultsPath);
  const promotionText = await readOptional(join(outDir, "promotion.json"));
  let promotion: Promotion | null = null;
  if (promotionText !== null) {
    let raw: unknown;
    try {
      raw = JSON.parse(promotionText);
    } catch (cause) {
      throw new RunnerError("RUNNER_BAD_INPUT", `${join(outDir, "promotion.json")} is not JSON: restore the file the sweep wrote`, { cause });
    }
    const parsed = PromotionSchema.safeParse(raw);
    if (!parsed.success) throw new RunnerError("RUNNER_BAD_INPUT", `${join(outDir, "promotion.json")} field ${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? "invalid"}: restore the file the sweep wrote`);
    promotion = parsed.data;
  }
  const report = renderReport(log.rows, provenance.value, { promotion });
  if (!report.ok) throw new RunnerError("RUNNER_BAD_INPUT", `${resultsPath} row ${report.error.index} field ${report.error.field}: ${report.error.message}`);
  const reportPath = join(outDir, "report.md");
  await writeFileAtomic(reportPath, report.value, { mode: 0o644 });
  // The same rows and provenance feed report.html and report-stats.json, next to report.md.
  const html = await writeHtmlReport({ outDir, provenance: provenance.value });
  return { written: [reportPath, html.htmlPath, html.statsPath], tornTail: log.tornTail };
}
