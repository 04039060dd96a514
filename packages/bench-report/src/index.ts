export { BenchReportError, isBenchReportError } from "./errors.js";
export type { BenchReportErrorCode } from "./errors.js";
export { openResultsLog, readResultsLog } from "./results-log.js";
export type { OpenResultsLogOptions, ReadResultsLog, ResultsLog } from "./results-log.js";
export { renderReport } from "./render-report.js";
export type { RenderReportResult, ReportProvenance, SweepStatus } from "./render-report.js";
