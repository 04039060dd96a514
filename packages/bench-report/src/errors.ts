/** Stable codes for bench-report failures; callers branch on these, never on messages. */
export type BenchReportErrorCode = "BENCH_REPORT_WRITE_FAILED" | "BENCH_REPORT_READ_FAILED";

/** Base error of bench-report: thrown for environment failures and bugs, never for expected outcomes. */
export class BenchReportError extends Error {
  readonly code: BenchReportErrorCode;
  constructor(code: BenchReportErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "BenchReportError";
    this.code = code;
  }
}

/** True for any BenchReportError, also across module copies (checks the code prefix, not identity). */
export function isBenchReportError(value: unknown): value is BenchReportError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("BENCH_REPORT_");
}
