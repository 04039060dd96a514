import { digestFileTree } from "@wfbench/digest";
import { checkRelativePath } from "@wfbench/pycompat";
import { PromotionError } from "./errors.js";

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
 * overlay is applied: a clean relative path (@wfbench/pycompat's checkRelativePath: at most 512 UTF-8 bytes, no
 * backslash, NUL, lone surrogate, empty, `.` or `..` parts), `.claude/skills/<skill>/<rest>` with `<skill>` one of
 * `skills` (the suite's evaluated skills, passed in by the caller), and a `.md` suffix in any case. Returns the
 * refusal or null; trusts nothing about the path.
 */
export function checkOverlayPath(relativePath: string, skills: readonly string[]): OverlayPathRefusal | null {
  const problem = checkRelativePath(relativePath, { maxBytes: MAX_OVERLAY_PATH_BYTES, git: "allow" });
  if (problem?.rule === "too-long") return { rule: "path-too-long", message: `longer than ${MAX_OVERLAY_PATH_BYTES} bytes` };
  if (problem !== null) return { rule: "outside-skill-tree", message: problem.message };
  const parts = relativePath.split("/");
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

/**
 * True when `target` is a destination the apply may write for some overlay file: the canonical
 * `.claude/skills/<skill>/<rest>.md` or one of its shipped mirrors, `<skill>` one of `skills` when given (any skill
 * name otherwise). Trusts nothing about the path; a `..`, absolute or empty part is refused by the overlay path rule.
 */
export function isOverlayDestination(target: string, skills?: readonly string[]): boolean {
  const parts = target.split("/");
  if (parts.length < 4) return false;
  // Every mirror root has two parts (`<root>/skills`), like `.claude/skills`, so the canonical path keeps the rest.
  const canonical = `.claude/skills/${parts.slice(2).join("/")}`;
  return checkOverlayPath(canonical, skills ?? [parts[2] as string]) === null && listMirrorTargets(canonical).includes(target);
}

const OVERLAY_TEMPORARY_PREFIX = ".wfevolve-";
const OVERLAY_TEMPORARY_HEX = /^[0-9a-f]{32}$/u;

/**
 * True when `name` (a file name, not a path) is one the apply gives its temporaries (`.wfevolve-<32 lowercase hex>`,
 * the staged candidate and the hard-linked backup beside each destination); trusts nothing about the name.
 */
export function isOverlayTemporaryName(name: string): boolean {
  return name.startsWith(OVERLAY_TEMPORARY_PREFIX) && OVERLAY_TEMPORARY_HEX.test(name.slice(OVERLAY_TEMPORARY_PREFIX.length));
}

/**
 * The temporary name for 32 hex characters, checked by isOverlayTemporaryName so every name the apply writes is one
 * recovery accepts. Trusts nothing; throws PromotionError(PROMOTION_INVALID_TEMPORARY_NAME) for anything else.
 */
export function overlayTemporaryName(hex: string): string {
  const name = `${OVERLAY_TEMPORARY_PREFIX}${hex}`;
  if (!isOverlayTemporaryName(name)) throw new PromotionError("PROMOTION_INVALID_TEMPORARY_NAME", `temporary name ${JSON.stringify(name)} is not .wfevolve-<32 lowercase hex>: randomHex must return 32 lowercase hex characters`);
  return name;
}

/**
 * Overlay digest (reference §4.5): @wfbench/digest's file-tree digest (code-point order, path and content framed),
 * the same value as the cell's skill fingerprint of the overlaid skills. Trusts the paths as given (validate first).
 */
export function computeOverlayDigest(files: readonly OverlayFile[]): string {
  return digestFileTree(files);
}
