import { constants } from "node:fs";
import { open, readFile, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import stringify from "fast-json-stable-stringify";
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

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Opens (or creates, mode 0600, then fsyncs its directory) a results log with O_APPEND, so each row lands as one
 * write at the end even if another writer appends too. A crash can at worst leave the last line torn; earlier rows
 * are never rewritten. Refuses a redactor that breaks the one-line rule.
 * @throws {BenchReportError} BENCH_REPORT_WRITE_FAILED on any I/O failure.
 */
export async function openResultsLog(path: string, options: OpenResultsLogOptions = {}): Promise<ResultsLog> {
  let handle: FileHandle;
  let created = false;
  try {
    try {
      handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      handle = await open(path, constants.O_WRONLY | constants.O_APPEND);
    }
    if (created) await syncDirectory(dirname(path));
  } catch (cause) {
    throw new BenchReportError("BENCH_REPORT_WRITE_FAILED", `cannot open ${path} for appending`, { cause });
  }
  let queue: Promise<void> = Promise.resolve();
  const redact = options.redact ?? ((line: string): string => line);
  return {
    path,
    append(row) {
      const line = redact(stringify(row));
      if (line.includes("\n")) return Promise.reject(new BenchReportError("BENCH_REPORT_WRITE_FAILED", "a results row must serialise to one line"));
      const bytes = Buffer.from(`${line}\n`, "utf8");
      const next = queue.then(async () => {
        try {
          const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
          if (bytesWritten !== bytes.length) throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
          await handle.sync();
        } catch (cause) {
          throw new BenchReportError("BENCH_REPORT_WRITE_FAILED", `cannot append a row to ${path}`, { cause });
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      await handle.close();
    },
  };
}

/** Rows read back from a results log; a last line without its newline (a crash mid-write) is reported, not parsed. */
export interface ReadResultsLog {
  readonly rows: readonly Record<string, unknown>[];
  readonly tornTail: boolean;
}

/**
 * Reads a results log. Every complete line must be a JSON object (anything else is corruption and throws); an
 * unterminated last line is the only tolerated damage and is skipped.
 * @throws {BenchReportError} BENCH_REPORT_READ_FAILED when the file cannot be read or a complete line is not a row.
 */
export async function readResultsLog(path: string): Promise<ReadResultsLog> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new BenchReportError("BENCH_REPORT_READ_FAILED", `cannot read ${path}`, { cause });
  }
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  const rows = lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new BenchReportError("BENCH_REPORT_READ_FAILED", `${path} line ${index + 1} is not JSON`, { cause });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new BenchReportError("BENCH_REPORT_READ_FAILED", `${path} line ${index + 1} is not a JSON object`);
    return value as Record<string, unknown>;
  });
  return { rows, tornTail: tail !== "" };
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
