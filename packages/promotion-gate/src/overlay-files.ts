import { createHash } from "node:crypto";
import { compareCodePoints } from "./aggregate.js";

/** One overlay file: its overlay-relative posix path (`.claude/skills/<skill>/…`) and its bytes. */
export interface OverlayFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

const MIRROR_ROOTS = ["gitnexus/skills", "gitnexus-claude-plugin/skills"] as const;
const REVIEW_ONLY_MIRROR_ROOT = "gitnexus-cursor-integration/skills";

/** Longest overlay-relative path, in UTF-8 bytes (reference Appendix A `MAX_CANDIDATE_PATH_BYTES`). */
export const MAX_OVERLAY_PATH_BYTES = 512;

/** Which part of the overlay path rule a path breaks. */
export type OverlayPathRule = "path-too-long" | "outside-skill-tree" | "unknown-skill" | "not-markdown";

/** A path the overlay path rule refuses: the rule and what was expected. */
export interface OverlayPathRefusal {
  readonly rule: OverlayPathRule;
  readonly message: string;
}

/**
 * The one overlay path rule (reference §9.4), used when an overlay is read for measuring and again when a promoted
 * overlay is applied: at most 512 UTF-8 bytes, a posix path without backslashes or NUL, no empty, `.` or `..` parts,
 * `.claude/skills/<skill>/<rest>` with `<skill>` one of `skills` (the suite's evaluated skills, passed in by the
 * caller), and a `.md` suffix in any case. Returns the refusal or null; trusts nothing about the path.
 */
export function checkOverlayPath(relativePath: string, skills: readonly string[]): OverlayPathRefusal | null {
  const parts = relativePath.split("/");
  if (Buffer.byteLength(relativePath, "utf8") > MAX_OVERLAY_PATH_BYTES) return { rule: "path-too-long", message: `longer than ${MAX_OVERLAY_PATH_BYTES} bytes` };
  if (relativePath.includes("\\") || relativePath.includes("\0")) return { rule: "outside-skill-tree", message: "must be a posix path without backslashes or NUL" };
  if (parts.some((part) => part === "" || part === "." || part === "..")) return { rule: "outside-skill-tree", message: "must not contain empty, '.' or '..' parts" };
  if (parts.length < 4 || parts[0] !== ".claude" || parts[1] !== "skills") return { rule: "outside-skill-tree", message: "must lie under .claude/skills/<skill>/" };
  if (!skills.includes(parts[2] as string)) return { rule: "unknown-skill", message: `skill must be one of ${skills.join(", ")} (the suite's evaluated skills), not ${JSON.stringify(parts[2])}` };
  if (!relativePath.toLowerCase().endsWith(".md")) return { rule: "not-markdown", message: "must be a Markdown (.md) file" };
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
