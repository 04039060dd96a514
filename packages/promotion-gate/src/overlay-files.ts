import { digestFileTree } from "@wfbench/digest";
import { checkRelativePath } from "@wfbench/pycompat";
import { CANDIDATE_SKILLS } from "./constants.js";

/** One overlay file: its overlay-relative posix path (`.claude/skills/<skill>/…`) and its bytes. */
export interface OverlayFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

const MIRROR_ROOTS = ["gitnexus/skills", "gitnexus-claude-plugin/skills"] as const;
const REVIEW_ONLY_MIRROR_ROOT = "gitnexus-cursor-integration/skills";

/**
 * Checks an overlay path is a clean relative path (@wfbench/pycompat's checkRelativePath) of the form
 * `.claude/skills/<candidate skill>/<rest>.md`; returns the reason it is refused, or null. Trusts nothing about the path.
 */
export function checkOverlayPath(relativePath: string): string | null {
  const problem = checkRelativePath(relativePath, { git: "allow" });
  if (problem !== null) return problem.message;
  const parts = relativePath.split("/");
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

/**
 * Overlay digest (reference §4.5): @wfbench/digest's file-tree digest (code-point order, path and content framed),
 * the same value as the cell's skill fingerprint of the overlaid skills. Trusts the paths as given (validate first).
 */
export function computeOverlayDigest(files: readonly OverlayFile[]): string {
  return digestFileTree(files);
}
