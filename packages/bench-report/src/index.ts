export { BenchReportError, isBenchReportError } from "./errors.js";
export type { BenchReportErrorCode } from "./errors.js";
export { openResultsLog, readResultRows, readResultsLog } from "./results-log.js";
export type { OpenResultsLogOptions, ReadResultRows, ReadResultsLog, ResultsLog } from "./results-log.js";
export { renderReport } from "./render-report.js";
export type { RenderReportOptions, RenderReportResult, ReportProvenance, SweepStatus } from "./render-report.js";
export { REPORT_PROVENANCE_FILE, extractMainTable, formatReportProvenance, parseReportProvenance } from "./report-provenance.js";
export { computeReportStats, formatReportStats } from "./paired-stats.js";
export type { PairedComparison, PairedInterval, ReportStats } from "./paired-stats.js";
