import { compareCodePoints } from "./compare-code-points.js";
import { hashFrames } from "./sha256.js";

/** One file of a tree: its relative posix path and its bytes. */
export interface TreeFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/**
 * The file-tree digest of reference §4.5 (the skill fingerprint and the candidate overlay digest are this one value):
 * files ordered by the code points of their path, then for each one frame of path bytes (UTF-8) and one frame of
 * content, 8-byte big-endian lengths first. Input order never matters. Trusts the paths to be validated and unique.
 */
export function digestFileTree(files: readonly TreeFile[]): string {
  const ordered = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  return hashFrames(ordered.flatMap((file) => [file.path, file.bytes]));
}
