/** Stable codes for report-html failures; callers branch on these, never on messages. */
export type ReportHtmlErrorCode = "REPORT_HTML_READ_FAILED" | "REPORT_HTML_ROW_REFUSED" | "REPORT_HTML_ASSET_MISSING" | "REPORT_HTML_WRITE_FAILED";

/** Base error of report-html: thrown for environment failures (unreadable sweep, missing chart bundle, failed write). */
export class ReportHtmlError extends Error {
  readonly code: ReportHtmlErrorCode;
  constructor(code: ReportHtmlErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ReportHtmlError";
    this.code = code;
  }
}

/** True for any ReportHtmlError, also across module copies (checks the code prefix, not identity). */
export function isReportHtmlError(value: unknown): value is ReportHtmlError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("REPORT_HTML_");
}
