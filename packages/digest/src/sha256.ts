import { createHash } from "node:crypto";
import stringify from "fast-json-stable-stringify";
import { compareCodePoints } from "./compare-code-points.js";
import { DigestError, type DigestErrorCode } from "./errors.js";
import { inspectJsonGraph, type JsonGraphDefect, type JsonPathKey } from "./inspect-json-graph.js";

// fast-json-stable-stringify 2.1.0 takes `opts.cmp`, called with `{ key, value }` for two keys of one object (its
// bundled typings declare only the value argument).
interface KeyEntry {
  readonly key: string;
  readonly value: unknown;
}
const stringifyWith = stringify as unknown as (value: unknown, opts: { cmp: (a: KeyEntry, b: KeyEntry) => number }) => string;
const CODE_POINT_KEYS = { cmp: (a: KeyEntry, b: KeyEntry): number => compareCodePoints(a.key, b.key) };

/** sha256 hex of UTF-8 text or raw bytes. Trusts its input to be the exact bytes meant; no normalisation. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 hex and byte count of a stream of chunks, read to its end; trusts the stream, rethrows its errors. */
export async function sha256Stream(chunks: AsyncIterable<Uint8Array>): Promise<{ readonly sha256: string; readonly size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hash.digest("hex"), size };
}

/**
 * Deepest nesting canonicalJson writes (the root is level 1). fast-json-stable-stringify recurses, and overflowed past
 * 6,156 levels from a shallow stack on Node 20; 5,000 leaves room for the caller's frames and still holds a scripted
 * tool input of 4,000 levels inside a request body or a script.
 */
export const MAX_CANONICAL_JSON_DEPTH = 5_000;

const PATH_KEYS = 16;

const CODES: Readonly<Record<JsonGraphDefect["kind"], DigestErrorCode>> = {
  "non-finite-number": "DIGEST_NON_FINITE_NUMBER",
  "too-deep": "DIGEST_TOO_DEEP",
  cycle: "DIGEST_CYCLE",
  "not-json-value": "DIGEST_NOT_JSON",
  // Not checked here (no size bound, no strict mode); listed so the map is total.
  "too-large": "DIGEST_NOT_JSON",
  "proto-key": "DIGEST_NOT_JSON",
};

// The keys as a JSON list: this leaf has no field-name formatter (pycompat's formatIssuePath is for callers).
function describePath(path: readonly JsonPathKey[]): string {
  const text = JSON.stringify(path.slice(0, PATH_KEYS));
  return path.length > PATH_KEYS ? `${text.slice(0, -1)},...]` : text;
}

function describeDefect(defect: JsonGraphDefect): string {
  const at = describePath(defect.path);
  switch (defect.kind) {
    case "non-finite-number":
      return `canonicalJson: ${String(defect.value)} at path ${at} is not a JSON number (Python's json.dumps(allow_nan=False) refuses it too)`;
    case "too-deep":
      return `canonicalJson: the value nests more than ${MAX_CANONICAL_JSON_DEPTH.toLocaleString("en-US")} levels (at path ${at}), deeper than it can be written`;
    case "cycle":
      return `canonicalJson: the value contains itself at path ${at}, so it has no JSON text`;
    default:
      return `canonicalJson: the value at path ${at} is not JSON data`;
  }
}

/**
 * Canonical JSON text (compact, fast-json-stable-stringify, object keys sorted by code point as Python's
 * `json.dumps(sort_keys=True, allow_nan=False)` writes them): the only form any digest of a structured value is taken
 * over. Refuses with a DigestError a non-finite number, nesting past {@link MAX_CANONICAL_JSON_DEPTH}, a cycle or a
 * bigint; `undefined` members are dropped as JSON.stringify drops them. Trusts a value shared many times to be small:
 * it is written out at every place.
 */
export function canonicalJson(value: unknown): string {
  const defect = inspectJsonGraph(value, { maxDepth: MAX_CANONICAL_JSON_DEPTH, pathKeys: PATH_KEYS });
  if (defect !== null) throw new DigestError(CODES[defect.kind], describeDefect(defect), defect.path.slice(0, PATH_KEYS));
  return stringifyWith(value, CODE_POINT_KEYS);
}

/** sha256 hex of the canonical JSON of `value`, so key order never changes a digest; refuses as canonicalJson does. */
export function digestJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * Framed sha256 hex (reference §4.5 `_hash_frames`): each frame is prefixed with its byte length as an 8-byte
 * big-endian integer, so bytes can never move across a frame boundary unnoticed. Strings are hashed as UTF-8.
 */
export function hashFrames(frames: Iterable<string | Uint8Array>): string {
  const hash = createHash("sha256");
  const length = Buffer.alloc(8);
  for (const frame of frames) {
    const bytes = typeof frame === "string" ? Buffer.from(frame, "utf8") : frame;
    length.writeBigUInt64BE(BigInt(bytes.byteLength));
    hash.update(length);
    hash.update(bytes);
  }
  return hash.digest("hex");
}
