import { open, type FileHandle } from "node:fs/promises";
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
  | { kind: "not_found"; status: 404 };

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

/** Appends JSONL entries one at a time, fsyncing each, so the log on disk is complete when a reply is sent. */
export class RequestLogFile {
  private handle: FileHandle | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  /** Opens (creates or appends to) the log; throws RequestLogWriteError when the path cannot be opened. */
  async open(): Promise<void> {
    try {
      this.handle = await open(this.path, "a", 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
      throw new RequestLogWriteError(`cannot open the request log ${this.path} (${code}); check that its directory exists and is writable`, {
        cause: error,
      });
    }
  }

  /** Appends one entry after every earlier one; the promise settles once the line is fsynced. */
  append(entry: RequestLogEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const write = this.queue.then(async () => {
      const handle = this.handle;
      if (handle === null) throw new RequestLogWriteError(`request log ${this.path} is not open`);
      try {
        await handle.appendFile(line, "utf8");
        await handle.sync();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
        throw new RequestLogWriteError(`cannot append to the request log ${this.path} (${code})`, { cause: error });
      }
    });
    this.queue = write.catch(() => undefined);
    return write;
  }

  /** Waits for pending writes and closes the file. */
  async close(): Promise<void> {
    await this.queue;
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }
}
