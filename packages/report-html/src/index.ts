export { ReportHtmlError, isReportHtmlError } from "./errors.js";
export type { ReportHtmlErrorCode } from "./errors.js";
export { toConversation } from "./conversation.js";
export type { ConversationItem } from "./conversation.js";
export { embedJson, renderHtmlReport } from "./render-html.js";
export type { CellView, HtmlReportData, ReviewView, RunView, TranscriptView } from "./render-html.js";
export { writeHtmlReport } from "./write-html-report.js";
export type { WriteHtmlReportOptions, WriteHtmlReportResult } from "./write-html-report.js";
