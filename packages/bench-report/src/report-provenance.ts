import { z } from "zod";
import type { ReportProvenance } from "./render-report.js";

/** The file beside report.md that keeps the sweep facts results rows do not carry (re-rendering needs them). */
export const REPORT_PROVENANCE_FILE = "report-provenance.json";

const ReportProvenanceSchema = z.strictObject({
  benchmarkModel: z.string(),
  proposerModel: z.string().nullable(),
  effort: z.string(),
  selectedTasks: z.array(z.string()),
  skippedExpensiveTasks: z.array(z.string()),
  upstream: z.string().min(1),
  claudeCodeVersion: z.string().nullable(),
  status: z.enum(["complete", "aborted", "cancelled"]),
  upstreamCanary: z.string().nullable().optional(),
  reuse: z.strictObject({ source: z.string(), reusedCells: z.int().min(0), paidCells: z.int().min(0) }).optional(),
});

/** Serialises the provenance a sweep rendered its report with (pretty JSON, trailing newline); trusts its input. */
export function formatReportProvenance(provenance: ReportProvenance): string {
  return `${JSON.stringify(provenance, null, 2)}\n`;
}

/** Parses report-provenance.json text; refuses non-JSON and any shape but the one formatReportProvenance writes. */
export function parseReportProvenance(text: string): { readonly ok: true; readonly value: ReportProvenance } | { readonly ok: false; readonly error: { readonly field: string; readonly message: string } } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: { field: "", message: `not JSON (${(error as Error).message})` } };
  }
  const parsed = ReportProvenanceSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: { field: issue?.path.join(".") ?? "", message: issue?.message ?? "invalid" } };
  }
  const { upstreamCanary, reuse, ...rest } = parsed.data;
  return { ok: true, value: { ...rest, ...(upstreamCanary === undefined ? {} : { upstreamCanary }), ...(reuse === undefined ? {} : { reuse }) } };
}

/**
 * The report's main table (the first markdown table in it, header and separator included), for places that show only
 * that, such as a CI job summary. Returns null when the text has no table. Trusts the text to be a rendered report.
 */
export function extractMainTable(reportMarkdown: string): string | null {
  const lines = reportMarkdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  if (start < 0) return null;
  let end = start;
  while (end < lines.length && (lines[end] as string).startsWith("|")) end += 1;
  return `${lines.slice(start, end).join("\n")}\n`;
}
