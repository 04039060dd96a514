import { createHash } from "node:crypto";
import { compareCodePoints } from "./aggregate.js";
import { CANDIDATE_SKILLS } from "./constants.js";

/** One overlay file: its overlay-relative posix path (`.claude/skills/<skill>/…`) and its bytes. */
export interface OverlayFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

const MIRROR_ROOTS = ["gitnexus/skills", "gitnexus-claude-plugin/skills"] as const;
const REVIEW_ONLY_MIRROR_ROOT = "gitnexus-cursor-integration/skills";

/**
 * Checks an overlay path is `.claude/skills/<candidate skill>/<rest>.md` with no empty, `.` or `..` parts; returns the
 * reason it is refused, or null. Trusts nothing about the path.
 */
export function checkOverlayPath(relativePath: string): string | null {
  const parts = relativePath.split("/");
  if (relativePath.includes("\\") || relativePath.includes("\0")) return "must be a posix path without backslashes or NUL";
  if (parts.some((part) => part === "" || part === "." || part === "..")) return "must not contain empty, '.' or '..' parts";
  if (parts.length < 4 || parts[0] !== ".claude" || parts[1] !== "skills") return "must lie under .claude/skills/<skill>/";
  if (!CANDIDATE_SKILLS.includes(parts[2] as string)) return `skill must be one of ${CANDIDATE_SKILLS.join(", ")}`;
  if (!relativePath.toLowerCase().endsWith(".md")) return "must be a Markdown (.md) file";
  return null;
}

/**
 * Lists the repository-relative destinations of one overlay file (reference §9.5): the canonical path first, then the
 * shipped mirrors (the cursor mirror for gitnexus-review only). Trusts a path already accepted by checkOverlayPath.
 */
export function listMirrorTargets(relativePath: string): string[] {
  const parts = relativePath.split("/");
  const skill = parts[2] as string;
  const rest = parts.slice(3).join("/");
  const targets = [relativePath, ...MIRROR_ROOTS.map((root) => `${root}/${skill}/${rest}`)];
  if (skill === "gitnexus-review") targets.push(`${REVIEW_ONLY_MIRROR_ROOT}/${skill}/${rest}`);
  return targets;
}

function writeLength(hash: ReturnType<typeof createHash>, length: number): void {
  const frame = Buffer.alloc(8);
  frame.writeBigUInt64BE(BigInt(length));
  hash.update(frame);
}

/**
 * Overlay digest (reference §4.5): sha256 over each file sorted by relative path, framed as 8-byte big-endian length +
 * path bytes, then length + content. Trusts the paths as given (validate them first).
 */
export function computeOverlayDigest(files: readonly OverlayFile[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort((a, b) => compareCodePoints(a.path, b.path))) {
    const pathBytes = Buffer.from(file.path, "utf8");
    writeLength(hash, pathBytes.length);
    hash.update(pathBytes);
    writeLength(hash, file.bytes.length);
    hash.update(file.bytes);
  }
  return hash.digest("hex");
}

/** sha256 hex of bytes. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
