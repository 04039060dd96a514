import { createHash } from "node:crypto";
import stringify from "fast-json-stable-stringify";

/** sha256 hex of raw bytes or UTF-8 text. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Canonical (compact, key-sorted) JSON text; the only form this package ever digests. */
export function canonicalJson(value: unknown): string {
  return stringify(value);
}

/** sha256 hex of the canonical JSON of `value`. */
export function digestJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
