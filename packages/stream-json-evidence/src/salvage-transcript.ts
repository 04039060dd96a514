import { canonicalJson, sha256Hex } from "@wfbench/digest";
import { isBlankPython } from "@wfbench/pycompat";
import { REDACTED, SENSITIVE_KEYS, redactText } from "@wfbench/redact";
import { EvidenceOptionsError, reject, type EvidenceResult } from "./errors.js";
import { exceedsNestingDepth, findJsonValueDefect, type JsonValueDefect } from "./inspect-json-value.js";
import { RedactionCollision, createJsonRedactor } from "./redact-text.js";
import { TRANSCRIPT_SOURCE, assertCanonicalRoundTrip, type TranscriptArtifact } from "./redact-transcript.js";
import { DEFAULT_MAX_BYTES, SESSION_ID_PATTERN, SecretsSchema, isJsonObject, type JsonValue } from "./schema.js";

/** `type` of the record that stands in for a captured line that is not a JSON object (its redacted text kept). */
export const SALVAGE_UNPARSED_TYPE = "wfbench_unparsed_line";
/** `type` of the last record when the byte bound cut the salvage short. */
export const SALVAGE_TRUNCATED_TYPE = "wfbench_transcript_truncated";

/** Options of {@link salvageTranscript}. */
export interface SalvageTranscriptOptions {
  /** Literal secrets to remove (API keys, minted gateway tokens, …). */
  readonly secrets?: readonly string[];
  /** Bound of the written bytes, truncation marker included (default 8 MiB). */
  readonly maxBytes?: number;
  /** Bound of the redacted text kept per unparsed line (default 16,384 characters). */
  readonly maxLineChars?: number;
}

/** A redacted transcript of a capture the parser refused: never evidence, only a record of what was captured. */
export interface SalvagedTranscript extends TranscriptArtifact {
  /** Captured non-blank lines written (JSON objects and unparsed-line records). */
  readonly keptLines: number;
  /** How many of the kept lines were not JSON objects and were kept as redacted text. */
  readonly unparsedLines: number;
  /** Non-blank lines left out because of the byte bound. */
  readonly droppedLines: number;
  readonly truncated: boolean;
  /** The first well-formed `session_id` of a JSON-object line, for naming the file only (not evidence). */
  readonly sessionId: string | null;
}

type UnparsedReason = "invalid-utf8" | "malformed-json" | "not-an-object" | JsonValueDefect | "redaction-collision";

const DEFAULT_MAX_LINE_CHARS = 16_384;
// Room kept for the truncation marker so the bound holds with it.
const MARKER_RESERVE = 256;
const STRING_LITERAL = /"(?:[^"\\\n]|\\.)*"/g;
// The keys are plain [a-z_-] words, so they need no escaping.
const SENSITIVE_VALUE = new RegExp(
  `("(?:${[...SENSITIVE_KEYS].join("|")})"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"?|[^,}\\]\\s]+)`,
  "giu",
);

// Raw text of a line that is not an object: each complete string literal is decoded first, so a secret written with
// JSON escapes is still found; sensitive keys lose their values as in structural redaction; then the whole line again.
function redactRawLine(text: string, secrets: readonly string[]): string {
  const literals = text.replace(STRING_LITERAL, (literal) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(literal);
    } catch {
      return redactText(literal, secrets);
    }
    return typeof decoded === "string" ? JSON.stringify(redactText(decoded, secrets)) : literal;
  });
  return redactText(literals.replace(SENSITIVE_VALUE, `$1"${REDACTED}"`), secrets);
}

function cutText(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), cut: true };
}

/**
 * Turns a refused capture (malformed line, event after the result, oversize, …) into a bounded, redacted canonical
 * JSONL record of what was captured: each JSON-object line structurally redacted as {@link redactTranscript} does,
 * every other non-blank line as a `wfbench_unparsed_line` record with its 1-based line, a reason and its redacted text
 * (string literals decoded before redaction, sensitive-key values replaced, capped per line). Lines past the byte
 * bound are counted and named by a final `wfbench_transcript_truncated` record. Trusts nothing in the bytes; the result
 * is a record for humans, never evidence. Refuses a capture with no non-blank line (`EVIDENCE_EMPTY_STREAM`).
 * @throws {EvidenceOptionsError} on bad options.
 */
export function salvageTranscript(capture: Uint8Array, options: SalvageTranscriptOptions = {}): EvidenceResult<SalvagedTranscript> {
  const parsedSecrets = SecretsSchema.safeParse(options.secrets ?? []);
  if (!parsedSecrets.success) throw new EvidenceOptionsError(`invalid secrets: ${parsedSecrets.error.message}`);
  const secrets = parsedSecrets.data;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes <= MARKER_RESERVE) throw new EvidenceOptionsError(`maxBytes must be an integer over ${MARKER_RESERVE}`);
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  if (!Number.isInteger(maxLineChars) || maxLineChars <= 0) throw new EvidenceOptionsError("maxLineChars must be a positive integer");

  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const redact = createJsonRedactor(secrets);
  const out: string[] = [];
  let length = 0;
  let keptLines = 0;
  let unparsedLines = 0;
  let droppedLines = 0;
  let firstDropped: number | null = null;
  let sessionId: string | null = null;
  let seen = 0;

  let start = 0;
  let lineNumber = 0;
  while (start < capture.length) {
    const newline = capture.indexOf(0x0a, start);
    const end = newline === -1 ? capture.length : newline;
    const bytes = capture.subarray(start, end);
    start = end + 1;
    lineNumber += 1;
    let text: string | null;
    try {
      text = strict.decode(bytes);
    } catch {
      text = null;
    }
    if (text !== null && isBlankPython(text)) continue;
    seen += 1;
    if (firstDropped !== null) {
      droppedLines += 1;
      continue;
    }
    let record: string;
    let asText = false;
    let unparsed: UnparsedReason | null = null;
    let value: JsonValue | undefined;
    if (text === null) unparsed = "invalid-utf8";
    else if (exceedsNestingDepth(text)) unparsed = "nesting-too-deep";
    else {
      try {
        value = JSON.parse(text) as JsonValue;
      } catch {
        unparsed = "malformed-json";
      }
    }
    if (unparsed === null && value !== undefined) {
      const defect = findJsonValueDefect(value);
      if (defect !== null) unparsed = defect;
      else if (!isJsonObject(value)) unparsed = "not-an-object";
    }
    let redacted: JsonValue | RedactionCollision | null = null;
    if (unparsed === null && value !== undefined) {
      redacted = redact(value);
      if (redacted instanceof RedactionCollision) unparsed = "redaction-collision";
    }
    if (unparsed === null && redacted !== null && !(redacted instanceof RedactionCollision) && isJsonObject(value)) {
      const id = value["session_id"];
      if (sessionId === null && typeof id === "string" && SESSION_ID_PATTERN.test(id)) sessionId = id;
      record = `${canonicalJson(redacted)}\n`;
    } else {
      asText = true;
      const raw = text ?? lossy.decode(bytes);
      const kept = cutText(redactRawLine(raw, secrets), maxLineChars);
      const entry: { [key: string]: JsonValue } = { type: SALVAGE_UNPARSED_TYPE, line: lineNumber, reason: unparsed ?? "malformed-json", text: kept.text };
      if (kept.cut) entry["text_truncated"] = true;
      record = `${canonicalJson(entry)}\n`;
    }
    const size = Buffer.byteLength(record, "utf8");
    if (length + size > maxBytes - MARKER_RESERVE) {
      firstDropped = lineNumber;
      droppedLines += 1;
      continue;
    }
    out.push(record);
    length += size;
    keptLines += 1;
    if (asText) unparsedLines += 1;
  }
  if (seen === 0) return reject("EVIDENCE_EMPTY_STREAM", "the capture holds no non-blank line");
  if (firstDropped !== null) out.push(`${canonicalJson({ type: SALVAGE_TRUNCATED_TYPE, dropped_lines: droppedLines, first_dropped_line: firstDropped, max_bytes: maxBytes })}\n`);
  const bytes = new TextEncoder().encode(out.join(""));
  assertCanonicalRoundTrip(bytes, out.length);
  return {
    ok: true,
    value: {
      bytes,
      sha256: sha256Hex(bytes),
      byteLength: bytes.length,
      eventCount: out.length,
      source: TRANSCRIPT_SOURCE,
      keptLines,
      unparsedLines,
      droppedLines,
      truncated: firstDropped !== null,
      sessionId,
    },
  };
}
