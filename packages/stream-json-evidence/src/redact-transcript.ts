import { canonicalJson, sha256Hex } from "@wfbench/digest";
import { EvidenceError, EvidenceOptionsError, reject, type EvidenceResult } from "./errors.js";
import type { ParsedEvidenceStream } from "./parse-evidence-stream.js";
import { RedactionCollision, createJsonRedactor } from "./redact-text.js";
import { TRANSCRIPT_SOURCE } from "@wfbench/result-row";
import { DEFAULT_MAX_BYTES, SecretsSchema, isJsonObject, type StreamEvent } from "./schema.js";

/** Where transcript bytes came from; recorded in the row next to the sha256 (the row contract's constant). */
export { TRANSCRIPT_SOURCE };

/** A redacted canonical JSONL transcript, ready to be written as is. */
export interface TranscriptArtifact {
  readonly bytes: Uint8Array;
  /** sha256 hex of exactly `bytes`. */
  readonly sha256: string;
  readonly byteLength: number;
  readonly eventCount: number;
  readonly source: typeof TRANSCRIPT_SOURCE;
}

/** Options of {@link redactTranscript}. */
export interface RedactTranscriptOptions {
  /** Literal secrets to remove (API keys, minted gateway tokens, …). */
  readonly secrets?: readonly string[];
  /** Bound of the written bytes (default 8 MiB). */
  readonly maxBytes?: number;
}

/**
 * Redacts every key and string of the events structurally and renders canonical JSONL (sorted keys, compact, one
 * event per line, raw UTF-8). Takes a parsed stream (window plus trailing system events) or the partial events of a
 * killed session. Refuses key collisions after redaction and output over the byte bound; re-parses what it produced.
 * @throws {EvidenceOptionsError} on bad options.
 */
export function redactTranscript(source: ParsedEvidenceStream | readonly StreamEvent[], options: RedactTranscriptOptions = {}): EvidenceResult<TranscriptArtifact> {
  const secrets = SecretsSchema.safeParse(options.secrets ?? []);
  if (!secrets.success) throw new EvidenceOptionsError(`invalid secrets: ${secrets.error.message}`);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new EvidenceOptionsError("maxBytes must be a positive integer");
  const events = isEventList(source) ? source : [...source.events, ...source.trailingEvents];

  const redact = createJsonRedactor(secrets.data);
  const lines: string[] = [];
  let length = 0;
  for (const [index, event] of events.entries()) {
    const redacted = redact(event);
    if (redacted instanceof RedactionCollision) {
      return reject("EVIDENCE_REDACTION_KEY_COLLISION", `event ${index + 1}: two keys become ${JSON.stringify(redacted.key)} after redaction`);
    }
    const line = `${canonicalJson(redacted)}\n`;
    length += Buffer.byteLength(line, "utf8");
    if (length > maxBytes) return reject("EVIDENCE_TRANSCRIPT_OVERSIZE", `redacted transcript exceeds ${maxBytes} bytes at event ${index + 1}`);
    lines.push(line);
  }
  const bytes = new TextEncoder().encode(lines.join(""));
  assertCanonicalRoundTrip(bytes, events.length);
  return { ok: true, value: { bytes, sha256: sha256Hex(bytes), byteLength: bytes.length, eventCount: events.length, source: TRANSCRIPT_SOURCE } };
}

function isEventList(source: ParsedEvidenceStream | readonly StreamEvent[]): source is readonly StreamEvent[] {
  return Array.isArray(source);
}

/** What we write must read back as the same number of objects; anything else is a bug here, not bad evidence. */
export function assertCanonicalRoundTrip(bytes: Uint8Array, expected: number): void {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const lines = text === "" ? [] : text.slice(0, -1).split("\n");
  const objects = lines.filter((line) => isJsonObject(JSON.parse(line) as unknown)).length;
  if (lines.length !== expected || objects !== expected) {
    throw new EvidenceError("EVIDENCE_CANONICAL_ROUNDTRIP", `canonical transcript re-parsed as ${objects}/${lines.length} objects, expected ${expected}`);
  }
}
