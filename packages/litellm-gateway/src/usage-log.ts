import { open, readFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import stringify from "fast-json-stable-stringify";
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
 * Opens (creating with mode 0600) an append-only usage log. Trusts the path's directory to be the caller's; validates
 * every row against the schema before writing so a malformed row is a bug, not evidence.
 * @throws {GatewayUsageLogError} when the file cannot be opened
 */
export async function openUsageLog(path: string): Promise<UsageLog> {
  let handle: FileHandle;
  try {
    handle = await open(path, "a", 0o600);
  } catch (cause) {
    throw new GatewayUsageLogError(`cannot open usage log ${path}`, { cause });
  }
  let tail: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    path,
    append(row) {
      if (closed) return Promise.reject(new GatewayUsageLogError(`usage log ${path} is closed`));
      const valid = UsageRow.safeParse(row);
      if (!valid.success) {
        return Promise.reject(new GatewayUsageLogError(`refused an invalid usage row: ${valid.error.message.slice(0, 200)}`));
      }
      const line = `${stringify(valid.data)}\n`;
      const write = tail.then(async () => {
        try {
          await handle.appendFile(line, "utf8");
          await handle.sync();
        } catch (cause) {
          throw new GatewayUsageLogError(`cannot append to usage log ${path}`, { cause });
        }
      });
      // Keep the chain alive after a failure so later rows still get their own attempt.
      tail = write.catch(() => undefined);
      return write;
    },
    async close() {
      if (closed) return;
      closed = true;
      await tail;
      await handle.close();
    },
  };
}

/**
 * Reads a usage log back into rows. Refuses any line that is not a valid row (the log is evidence; silently skipping a
 * line would under-count spend). @throws {GatewayUsageLogCorruptError}
 */
export async function readUsageLog(path: string): Promise<UsageRow[]> {
  const text = await readFile(path, "utf8");
  const rows: UsageRow[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? "";
    if (line === "" && i === lines.length - 1) break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      throw new GatewayUsageLogCorruptError(`usage log ${path} line ${i + 1} is not JSON`, { cause });
    }
    const row = UsageRow.safeParse(parsed);
    if (!row.success) {
      throw new GatewayUsageLogCorruptError(`usage log ${path} line ${i + 1} is not a usage row: ${row.error.message.slice(0, 200)}`);
    }
    rows.push(row.data);
  }
  return rows;
}
