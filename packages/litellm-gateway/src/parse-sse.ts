/** One server-sent event: the `event:` name (null when absent) and the joined `data:` lines. */
export interface SseEvent {
  readonly event: string | null;
  readonly data: string;
  /** Set when the event outgrew MAX_SSE_EVENT_BYTES: its data was dropped unread (`data` is then ""). */
  readonly truncated?: true;
}

/** Most bytes one event (or one line) may hold before its data is dropped, so an upstream cannot fill the heap. */
export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;

/** Incremental SSE decoder: push raw bytes in any chunking, get whole events back. */
export interface SseParser {
  /** Feeds bytes; returns the events completed by them. */
  push(chunk: Uint8Array): SseEvent[];
  /** Flushes a trailing event that lacked its blank line (a truncated stream) and returns it. */
  end(): SseEvent[];
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EMPTY = Buffer.alloc(0);
// Stands in for the dropped head of an oversized line, so its line end is not taken for a blank line.
const COMMENT = Buffer.from(":");

/**
 * Creates an SSE decoder that trusts nothing about chunk boundaries and accepts LF, CRLF and CR line ends. It works on
 * bytes (line ends are ASCII, so a line never splits a UTF-8 sequence) and decodes only field values, because it sits
 * on the gateway's hot path.
 */
export function createSseParser(): SseParser {
  // The unfinished line, as the chunks that brought it: joined only once its line end arrives (no quadratic copying).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Inside an oversized line: its bytes are dropped up to its line end.
  let skipping = false;
  let eventName: string | null = null;
  let dataLines: string[] = [];
  let dataBytes = 0;
  let truncated = false;
  let sawField = false;

  const dispatch = (out: SseEvent[]): void => {
    if (truncated) out.push({ event: eventName, data: "", truncated: true });
    else if (sawField && dataLines.length > 0) {
      out.push({ event: eventName, data: dataLines.length === 1 ? (dataLines[0] ?? "") : dataLines.join("\n") });
    }
    eventName = null;
    dataLines = [];
    dataBytes = 0;
    truncated = false;
    sawField = false;
  };

  const consumeLine = (buf: Buffer, start: number, end: number, out: SseEvent[]): void => {
    if (start === end) {
      dispatch(out);
      return;
    }
    if (buf[start] === COLON) return;
    let colon = buf.indexOf(COLON, start);
    if (colon === -1 || colon >= end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && buf[valueStart] === SPACE) valueStart += 1;
    const fieldLength = colon - start;
    sawField = true;
    // Compare field names on bytes: decoding every name would cost a string per line.
    if (fieldLength === 4 && buf.toString("latin1", start, colon) === "data") {
      dataBytes += end - valueStart + 1;
      if (dataBytes > MAX_SSE_EVENT_BYTES) {
        truncated = true;
        dataLines = [];
      } else if (!truncated) dataLines.push(valueStart < end ? buf.toString("utf8", valueStart, end) : "");
    } else if (fieldLength === 5 && buf.toString("latin1", start, colon) === "event") {
      eventName = valueStart < end ? buf.toString("utf8", valueStart, end) : "";
    }
  };

  const drain = (buf: Buffer, out: SseEvent[], final: boolean): Buffer => {
    let start = 0;
    // Both searches are cached until passed: rescanning the rest of the buffer per line would be quadratic.
    let lf = -2;
    let cr = -2;
    for (;;) {
      if (lf !== -1 && lf < start) lf = buf.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = buf.indexOf(CR, start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (cr === buf.length - 1 && !final) break;
        end = cr;
        next = buf[cr + 1] === LF ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      consumeLine(buf, start, end, out);
      start = next;
    }
    return start >= buf.length ? EMPTY : Buffer.from(buf.subarray(start));
  };

  const hold = (rest: Buffer): void => {
    pending = rest.length === 0 ? [] : [rest];
    pendingBytes = rest.length;
  };
  // An unfinished line past the bound is dropped, and so is the rest of it up to its line end: its event is truncated.
  const dropIfOverBound = (): void => {
    if (pendingBytes <= MAX_SSE_EVENT_BYTES) return;
    hold(EMPTY);
    skipping = true;
    truncated = true;
    sawField = true;
  };

  return {
    push(chunk) {
      let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const out: SseEvent[] = [];
      const lf = bytes.indexOf(LF);
      const cr = bytes.indexOf(CR);
      const lineEnd = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (skipping) {
        if (lineEnd === -1) return out;
        skipping = false;
        bytes = Buffer.concat([COMMENT, bytes.subarray(lineEnd)]);
      } else if (lineEnd === -1) {
        // No line ends here: the chunk only extends the unfinished line.
        pending.push(bytes);
        pendingBytes += bytes.length;
        dropIfOverBound();
        return out;
      }
      const buf = pendingBytes === 0 ? bytes : Buffer.concat([...pending, bytes]);
      hold(drain(buf, out, false));
      dropIfOverBound();
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      const rest = skipping ? EMPTY : drain(pendingBytes === 0 ? EMPTY : Buffer.concat(pending), out, true);
      if (rest.length > 0) consumeLine(rest, 0, rest.length, out);
      hold(EMPTY);
      skipping = false;
      dispatch(out);
      return out;
    },
  };
}
