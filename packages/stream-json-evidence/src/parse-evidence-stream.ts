import { isBlankPython } from "@wfbench/pycompat";
import {
  EvidenceError,
  EvidenceOptionsError,
  EvidenceSourceError,
  isEvidenceError,
  truncateForMessage,
  type EvidenceRejection,
  type EvidenceRejectionCode,
} from "./errors.js";
import { exceedsNestingDepth, findJsonValueDefect } from "./inspect-json-value.js";
import { DEFAULT_MAX_BYTES, MAX_EVENT_DEPTH, ParseOptionsSchema, isJsonObject, type JsonValue, type StreamEvent } from "./schema.js";

/** Options of {@link parseEvidenceStream}. */
export interface ParseEvidenceOptions {
  /** Byte bound of the whole capture; more bytes make the evidence unverifiable (default 8 MiB). */
  readonly maxBytes?: number;
  /** The capturing process already dropped bytes past its own bound: the stream is refused as oversize. */
  readonly captureTruncated?: boolean;
  /** Called once per accepted event, in order, as soon as its line is complete (for live progress only, never evidence). */
  readonly onEvent?: (event: StreamEvent, line: number) => void;
}

/** The parsed capture: the evidence window ends at the single result event. */
export interface ParsedEvidenceStream {
  /** Events up to and including the result event; the only events that count as evidence. */
  readonly events: readonly StreamEvent[];
  /** 1-based stdout line of each event in `events`. */
  readonly eventLines: readonly number[];
  /** The single result event (also the last element of `events`). */
  readonly result: StreamEvent;
  readonly resultLine: number;
  /** `system` events written after the result (background bookkeeping): kept for the transcript, never evidence. */
  readonly trailingEvents: readonly StreamEvent[];
  readonly byteLength: number;
  /** Number of newline-separated lines seen, blank ones included. */
  readonly lineCount: number;
}

/** A refused capture; `partialEvents` is set only when every line was a valid event and the result event was missing (killed sessions). */
export type ParseEvidenceOutcome =
  | { readonly ok: true; readonly value: ParsedEvidenceStream }
  | { readonly ok: false; readonly error: EvidenceRejection; readonly partialEvents: readonly StreamEvent[] | null };

/** Incremental form of the parser: push chunks split anywhere, then finish once. */
export interface EvidenceStreamParser {
  push(chunk: Uint8Array): void;
  finish(): ParseEvidenceOutcome;
}

const NEWLINE = 0x0a;
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;
const NON_FINITE_TOKEN = /(?<![A-Za-z0-9_$])-?(?:NaN|Infinity)(?![A-Za-z0-9_$])/;

function validateOptions(options: ParseEvidenceOptions): { maxBytes: number; captureTruncated: boolean; onEvent: ParseEvidenceOptions["onEvent"] } {
  const { onEvent, ...rest } = options;
  const parsed = ParseOptionsSchema.safeParse(rest);
  if (!parsed.success) throw new EvidenceOptionsError(`invalid parse options: ${parsed.error.message}`);
  if (onEvent !== undefined && typeof onEvent !== "function") throw new EvidenceOptionsError("onEvent must be a function");
  return { maxBytes: parsed.data.maxBytes ?? DEFAULT_MAX_BYTES, captureTruncated: parsed.data.captureTruncated ?? false, onEvent };
}

function concatBytes(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Creates the incremental parser; it trusts nothing about chunk boundaries and refuses anything but strict UTF-8 JSONL. */
export function createEvidenceStreamParser(options: ParseEvidenceOptions = {}): EvidenceStreamParser {
  const { maxBytes, captureTruncated, onEvent } = validateOptions(options);
  // Splitting on the 0x0A byte is safe for UTF-8 (it never occurs inside a multi-byte sequence), so each line is
  // decoded whole and a chunk boundary inside a character cannot change the answer.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const events: StreamEvent[] = [];
  const eventLines: number[] = [];
  const trailingEvents: StreamEvent[] = [];
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let totalBytes = 0;
  let lineNumber = 0;
  let oversize = false;
  let finished = false;
  let firstError: EvidenceRejection | null = null;
  let result: StreamEvent | null = null;
  let resultLine = 0;

  const fail = (code: EvidenceRejectionCode, message: string, line: number): void => {
    firstError = { code, message, line };
  };

  const handleLine = (bytes: Uint8Array, terminated: boolean): void => {
    lineNumber += 1;
    const line = lineNumber;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      if (!terminated) fail("EVIDENCE_TRUNCATED_LINE", `stdout ends inside an unterminated line ${line} (cut mid-character)`, line);
      else fail("EVIDENCE_INVALID_UTF8", `line ${line} is not valid UTF-8`, line);
      return;
    }
    // Blank as Python's strip() sees it: a line holding only U+FEFF is not blank (and not JSON either).
    if (isBlankPython(text)) return;
    if (exceedsNestingDepth(text)) {
      fail("EVIDENCE_NESTING_TOO_DEEP", `malformed event at line ${line}: nested deeper than ${MAX_EVENT_DEPTH} levels`, line);
      return;
    }
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (cause) {
      // V8's message quotes the offending input; keep only the position so no transcript text leaks into a row.
      const position = /position (\d+)/.exec(cause instanceof Error ? cause.message : "")?.[1];
      const reason = position === undefined ? "not valid JSON" : `not valid JSON at position ${position}`;
      if (!terminated) {
        fail("EVIDENCE_TRUNCATED_LINE", `stdout ends inside an unterminated, unparseable line ${line}: ${reason}`, line);
      } else if (NON_FINITE_TOKEN.test(text.replace(STRING_LITERAL, '""'))) {
        fail("EVIDENCE_NON_FINITE_NUMBER", `malformed JSON at line ${line}: NaN/Infinity are not JSON`, line);
      } else {
        fail("EVIDENCE_MALFORMED_LINE", `malformed JSON at line ${line}: ${reason}`, line);
      }
      return;
    }
    // JSON.parse turns 1e999 into Infinity silently, and parses any depth; one iterative walk refuses both before
    // anything recursive (redaction, canonical JSON, previews) sees the value.
    const defect = findJsonValueDefect(value);
    if (defect === "non-finite-number") {
      fail("EVIDENCE_NON_FINITE_NUMBER", `malformed JSON at line ${line}: a number overflows to Infinity`, line);
      return;
    }
    if (defect === "nesting-too-deep") {
      fail("EVIDENCE_NESTING_TOO_DEEP", `malformed event at line ${line}: nested deeper than ${MAX_EVENT_DEPTH} levels`, line);
      return;
    }
    if (!isJsonObject(value)) {
      fail("EVIDENCE_NOT_AN_OBJECT", `malformed event at line ${line}: expected a JSON object`, line);
      return;
    }
    const type = value["type"];
    if (typeof type !== "string") {
      fail("EVIDENCE_EVENT_WITHOUT_TYPE", `malformed event at line ${line}: "type" must be a string`, line);
      return;
    }
    const event = value as StreamEvent;
    if (result !== null) {
      if (type === "result") {
        fail("EVIDENCE_RESULT_DUPLICATE", `second result event at line ${line} (first at line ${resultLine})`, line);
        return;
      }
      if (type !== "system") {
        // Echo only a type shaped like the CLI's own; anything else could be text the model controls (or a secret).
        const shown = /^[a-z_]{1,32}$/.test(type) ? JSON.stringify(type) : "(unrecognised)";
        fail("EVIDENCE_EVENT_AFTER_RESULT", `event of type ${shown} at line ${line} after the result event`, line);
        return;
      }
      trailingEvents.push(event);
    } else {
      events.push(event);
      eventLines.push(line);
      if (type === "result") {
        result = event;
        resultLine = line;
      }
    }
    if (onEvent === undefined) return;
    try {
      onEvent(event, line);
    } catch (cause) {
      throw new EvidenceError("EVIDENCE_ON_EVENT_FAILED", `the onEvent callback threw at line ${line}`, { cause });
    }
  };

  const push = (chunk: Uint8Array): void => {
    if (finished) throw new EvidenceOptionsError("push() after finish()");
    if (!(chunk instanceof Uint8Array)) throw new EvidenceOptionsError("chunks must be Uint8Array (no string encoding on the source)");
    totalBytes += chunk.length;
    // Once over the bound the capture is refused whatever it holds; keep counting so the caller's pipe still drains.
    if (totalBytes > maxBytes && !oversize) {
      oversize = true;
      // Nothing parsed so far can be evidence any more: release it so draining runs in constant memory.
      pending = [];
      pendingLength = 0;
      events.length = 0;
      eventLines.length = 0;
      trailingEvents.length = 0;
    }
    if (oversize || firstError !== null) return;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        // Copy: a source may reuse its buffer after yielding it.
        const rest = chunk.slice(start);
        pending.push(rest);
        pendingLength += rest.length;
        return;
      }
      const piece = chunk.subarray(start, newline);
      const lineBytes = pendingLength === 0 ? piece : concatBytes([...pending, piece], pendingLength + piece.length);
      pending = [];
      pendingLength = 0;
      handleLine(lineBytes, true);
      if (firstError !== null) return;
      start = newline + 1;
    }
  };

  const finish = (): ParseEvidenceOutcome => {
    if (finished) throw new EvidenceOptionsError("finish() called twice");
    finished = true;
    if (!oversize && firstError === null && pendingLength > 0) handleLine(concatBytes(pending, pendingLength), false);
    pending = [];
    if (captureTruncated) {
      return refuse({ code: "EVIDENCE_OVERSIZE", message: "the capture overflowed its bound and was truncated", line: null });
    }
    if (oversize) {
      return refuse({ code: "EVIDENCE_OVERSIZE", message: `stdout has ${totalBytes} bytes, over the ${maxBytes}-byte bound`, line: null });
    }
    if (firstError !== null) return refuse(firstError);
    if (events.length === 0) {
      return refuse({ code: "EVIDENCE_EMPTY_STREAM", message: "stdout holds no event", line: null });
    }
    if (result === null) {
      return { ok: false, error: { code: "EVIDENCE_RESULT_MISSING", message: `no result event in ${events.length} events`, line: null }, partialEvents: events };
    }
    return {
      ok: true,
      value: { events, eventLines, result, resultLine, trailingEvents, byteLength: totalBytes, lineCount: lineNumber },
    };
  };

  return { push, finish };
}

function refuse(error: EvidenceRejection): ParseEvidenceOutcome {
  return { ok: false, error, partialEvents: null };
}

/** The refusal to record when the parent has no capture at all (spawn failure, lost pipe): unverifiable, never empty evidence. */
export function refuseMissingCapture(reason: string): ParseEvidenceOutcome {
  return refuse({ code: "EVIDENCE_CAPTURE_MISSING", message: truncateForMessage(`no stdout capture: ${reason}`, 400), line: null });
}

/** Parses a whole captured stdout buffer; same answer as {@link parseEvidenceStream} on any chunking of the same bytes. */
export function parseEvidenceBytes(bytes: Uint8Array, options: ParseEvidenceOptions = {}): ParseEvidenceOutcome {
  const parser = createEvidenceStreamParser(options);
  parser.push(bytes);
  return parser.finish();
}

/**
 * Parses the CLI's parent-captured `stream-json` stdout (a buffer or a byte stream) into the evidence window.
 * Trusts only the bytes; refuses (as a value) oversize, non-UTF-8, non-object, NaN/Infinity, missing or repeated
 * result, and non-system events after the result. Keeps draining a stream after a refusal.
 * @throws {EvidenceOptionsError} on bad options. @throws {EvidenceSourceError} when the stream itself fails.
 */
export async function parseEvidenceStream(
  source: AsyncIterable<Uint8Array> | Uint8Array,
  options: ParseEvidenceOptions = {},
): Promise<ParseEvidenceOutcome> {
  if (source instanceof Uint8Array) return parseEvidenceBytes(source, options);
  const parser = createEvidenceStreamParser(options);
  try {
    for await (const chunk of source) parser.push(chunk);
  } catch (cause) {
    if (isEvidenceError(cause)) throw cause;
    throw new EvidenceSourceError("reading the captured stdout failed", { cause });
  }
  return parser.finish();
}
