import { isDurableFsError, openJsonlLog, readJsonl, type JsonlLog } from "@wfbench/durable-fs";
import { GatewayUsageLogCorruptError, GatewayUsageLogError } from "./errors.js";
import { UsageRow } from "./schema.js";

/** Append-only usage JSONL: one canonical JSON line per row, fsynced before append() resolves. */
export interface UsageLog {
  readonly path: string;
  /** Appends and fsyncs one row; appends are serialised in call order. @throws {GatewayUsageLogError} */
  append(row: UsageRow): Promise<void>;
  /** Waits for pending appends and closes the file. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens (creating with mode 0600, directory fsynced) an append-only usage log through @wfbench/durable-fs. Trusts the
 * path's directory to be the caller's; validates every row against the schema before writing so a malformed row is
 * a bug, not evidence.
 * @throws {GatewayUsageLogError} when the file cannot be opened
 */
export async function openUsageLog(path: string): Promise<UsageLog> {
  let log: JsonlLog;
  try {
    log = await openJsonlLog(path);
  } catch (cause) {
    throw new GatewayUsageLogError(`cannot open usage log ${path}`, { cause });
  }
  let closed = false;
  return {
    path,
    append(row) {
      if (closed) return Promise.reject(new GatewayUsageLogError(`usage log ${path} is closed`));
      const valid = UsageRow.safeParse(row);
      if (!valid.success) {
        return Promise.reject(new GatewayUsageLogError(`refused an invalid usage row: ${valid.error.message.slice(0, 200)}`));
      }
      return log.append(valid.data).catch((cause: unknown) => {
        throw new GatewayUsageLogError(`cannot append to usage log ${path}`, { cause });
      });
    },
    async close() {
      closed = true;
      await log.close();
    },
  };
}

/**
 * Reads a usage log back into rows. Refuses any line that is not a valid row, and a torn last line (the log is
 * evidence; silently skipping a line would under-count spend). @throws {GatewayUsageLogCorruptError}
 */
export async function readUsageLog(path: string): Promise<UsageRow[]> {
  let contents;
  try {
    contents = await readJsonl(path);
  } catch (cause) {
    if (isDurableFsError(cause) && cause.code === "DURABLE_FS_JSONL_CORRUPT") throw new GatewayUsageLogCorruptError(`usage log ${path} line ${String(cause.line)} is not JSON`, { cause });
    throw cause;
  }
  if (contents.tornTail !== null) throw new GatewayUsageLogCorruptError(`usage log ${path} ends in a torn line ${contents.values.length + 1} (a crash mid-append)`);
  return contents.values.map((value, index) => {
    const row = UsageRow.safeParse(value);
    if (!row.success) throw new GatewayUsageLogCorruptError(`usage log ${path} line ${index + 1} is not a usage row: ${row.error.message.slice(0, 200)}`);
    return row.data;
  });
}
