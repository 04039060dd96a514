import { isDurableFsError, openJsonlLog } from "@wfbench/durable-fs";
import { RequestLogWriteError } from "./errors.js";

/** What the server did with a request. */
export type RequestOutcome =
  | { kind: "reply"; status: 200; stop_reason: string }
  | { kind: "http_error"; status: number; error_type: string }
  | { kind: "stream_error"; status: 200; error_type: string; after_blocks: number }
  | { kind: "omit_content_block_stop"; status: 200; stop_reason: string }
  | { kind: "unmatched"; status: 400; prompt_prefix: string }
  | { kind: "beyond_script"; status: 400 }
  | { kind: "bad_request"; status: number; message: string }
  | { kind: "not_found"; status: 404 }
  | { kind: "unauthorized"; status: 401 };

/** One JSONL line of the request log; headers are already redacted, the body is only digested. */
export interface RequestLogEntry {
  readonly time: string;
  readonly seq: number;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly trajectory: string | null;
  readonly turn: number | null;
  readonly attempt: number | null;
  readonly model: string | null;
  readonly stream: boolean | null;
  readonly delay_ms: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body_sha256: string;
  readonly body_bytes: number;
  readonly outcome: RequestOutcome;
}

/** The request log: entries appended one at a time, each fsynced before its reply is sent. */
export interface RequestLog {
  /** Appends one entry after every earlier one; settles once the line is fsynced. @throws {RequestLogWriteError} */
  append(entry: RequestLogEntry): Promise<void>;
  /** Waits for pending writes and closes the file. */
  close(): Promise<void>;
}

// The errno code stays in the message so the fix (create the directory, free the disk) is evident.
function errnoIn(error: unknown): string {
  return (isDurableFsError(error) ? error.errno : undefined) ?? "unknown error";
}

/**
 * Opens (creates or appends to) the request log through @wfbench/durable-fs: canonical JSON lines, O_APPEND, fsync
 * per line, the directory fsynced on create. Trusts the path's directory to be the caller's.
 * @throws {RequestLogWriteError} when the path cannot be opened (the message names the path and errno code).
 */
export async function openRequestLog(path: string): Promise<RequestLog> {
  const log = await openJsonlLog(path).catch((error: unknown) => {
    throw new RequestLogWriteError(`cannot open the request log ${path} (${errnoIn(error)}); check that its directory exists and is writable`, { cause: error });
  });
  return {
    append: (entry) =>
      log.append(entry).catch((error: unknown) => {
        throw new RequestLogWriteError(`cannot append to the request log ${path} (${errnoIn(error)})`, { cause: error });
      }),
    close: () => log.close(),
  };
}
