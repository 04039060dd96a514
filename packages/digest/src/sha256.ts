import { createHash } from "node:crypto";
import stringify from "fast-json-stable-stringify";
import { compareCodePoints } from "./compare-code-points.js";

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
 * Canonical JSON text (compact, fast-json-stable-stringify, object keys sorted by code point as Python's
 * `json.dumps(sort_keys=True)` sorts them, not by UTF-16 unit): the only form any digest of a structured value is
 * taken over. Trusts `value` to be JSON data; `undefined` members are dropped as JSON.stringify drops them, and a
 * non-finite number becomes `null` where Python's `allow_nan=False` would refuse it.
 */
export function canonicalJson(value: unknown): string {
  return stringifyWith(value, CODE_POINT_KEYS);
}

/** sha256 hex of the canonical JSON of `value`, so key order never changes a digest. */
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
