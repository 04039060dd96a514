import { createHash } from "node:crypto";

/** sha256 hex of UTF-8 text or raw bytes. Trusts its input to be the exact bytes meant; no normalisation. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Framed sha256 hex: each frame is prefixed with its byte length as an 8-byte big-endian integer, so frame
 * boundaries can never be shifted. Strings are hashed as UTF-8.
 */
export function hashFrames(frames: readonly (string | Uint8Array)[]): string {
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
