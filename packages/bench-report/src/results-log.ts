import { isDurableFsError, openJsonlLog, readJsonl } from "@wfbench/durable-fs";
import { parseResultRow, type ParsedRow } from "@wfbench/result-row";
import { BenchReportError } from "./errors.js";

/** An append-only results.jsonl: one canonical JSON line per row, fsynced before `append` resolves. */
export interface ResultsLog {
  readonly path: string;
  /** Appends one row as one line (after `redact`), then fsyncs the file. Appends are serialised. */
  append(row: Readonly<Record<string, unknown>>): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link openResultsLog}. */
export interface OpenResultsLogOptions {
  /** Applied to each serialised line before it is written (credential redaction); must keep it one line. */
  readonly redact?: (line: string) => string;
}

/**
 * Opens (or creates, mode 0600) results.jsonl through @wfbench/durable-fs's append-only log: O_APPEND, one whole
 * fsynced line per row, the directory fsynced on create. A crash can at worst leave the last line torn; earlier rows
 * are never rewritten. Refuses a redactor that breaks the one-line rule.
 * @throws {BenchReportError} BENCH_REPORT_WRITE_FAILED on any I/O failure.
 */
export async function openResultsLog(path: string, options: OpenResultsLogOptions = {}): Promise<ResultsLog> {
  const log = await openJsonlLog(path, options.redact === undefined ? {} : { transform: options.redact }).catch((cause: unknown) => {
    throw new BenchReportError("BENCH_REPORT_WRITE_FAILED", `cannot open ${path} for appending`, { cause });
  });
  return {
    path,
    append: (row) =>
      log.append(row).catch((cause: unknown) => {
        throw new BenchReportError("BENCH_REPORT_WRITE_FAILED", `cannot append a row to ${path}: ${(cause as Error).message}`, { cause });
      }),
    close: () => log.close(),
  };
}

/** Rows read back from a results log; a last line without its newline (a crash mid-write) is reported, not parsed. */
export interface ReadResultsLog {
  readonly rows: readonly Record<string, unknown>[];
  readonly tornTail: boolean;
}

/**
 * Reads a results log. Every complete line must be a JSON object (anything else is corruption and throws); an
 * unterminated last line is the only tolerated damage and is reported, not parsed.
 * @throws {BenchReportError} BENCH_REPORT_READ_FAILED when the file cannot be read or a complete line is not a row.
 */
export async function readResultsLog(path: string): Promise<ReadResultsLog> {
  let contents;
  try {
    contents = await readJsonl(path);
  } catch (cause) {
    throw new BenchReportError("BENCH_REPORT_READ_FAILED", isDurableFsError(cause) ? cause.message : `cannot read ${path}`, { cause });
  }
  const rows = contents.values.map((value, index) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new BenchReportError("BENCH_REPORT_READ_FAILED", `${path} line ${index + 1} is not a JSON object`);
    return value as Record<string, unknown>;
  });
  return { rows, tornTail: contents.tornTail !== null };
}

/** Results rows read back through the row contract, and whether a torn last line was skipped. */
export interface ReadResultRows {
  readonly rows: readonly ParsedRow[];
  readonly tornTail: boolean;
}

/**
 * Reads a results.jsonl through the row contract (@wfbench/result-row): every complete line must be a row the
 * contract accepts (a current row in full, or an older row without `row_schema`); an unterminated last line is
 * skipped and reported, as in readResultsLog.
 * @throws {BenchReportError} BENCH_REPORT_READ_FAILED naming the line and field of the first refused row.
 */
export async function readResultRows(path: string): Promise<ReadResultRows> {
  const log = await readResultsLog(path);
  const rows = log.rows.map((raw, index) => {
    const parsed = parseResultRow(raw);
    if (!parsed.ok) throw new BenchReportError("BENCH_REPORT_READ_FAILED", `${path} line ${index + 1} field ${parsed.error.field || "(row)"}: ${parsed.error.message}`);
    return parsed.value;
  });
  return { rows, tornTail: log.tornTail };
}
