import { lstat, realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { compareCodePoints } from "@wfbench/digest";
import { isDurableFsError, listUnderRoot, readFileUnderRoot } from "@wfbench/durable-fs";
import { MAX_OVERLAY_PATH_BYTES, checkOverlayPath } from "@wfbench/promotion-gate";
import type { CandidateArm } from "@wfbench/result-row";
import type { SuiteSkills } from "@wfbench/task-suite";

/** Overlay bounds (reference Appendix A / §9.4); the path bound is the overlay path rule's. */
export const OVERLAY_LIMITS = { maxEntries: 256, maxFiles: 64, maxPathBytes: MAX_OVERLAY_PATH_BYTES, maxTotalBytes: 4 * 1024 * 1024 } as const;

/** One validated overlay file: its overlay-relative posix path (`.claude/skills/<skill>/…`) and its bytes. */
export interface CandidateOverlayFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** A validated candidate overlay. */
export interface CandidateOverlay {
  /** The overlay root as given (absolute). */
  readonly root: string;
  /** Files sorted by path (code-point order). */
  readonly files: readonly CandidateOverlayFile[];
  /** The suite skills the overlay touches. */
  readonly skills: readonly string[];
  /** `[incumbent, candidate]` pairs the overlay must be measured with, in the reference's order (§2.1). */
  readonly requiredArms: readonly (CandidateArm | "workflow" | "workflow_direct" | "review")[];
}

/** Which §9.4 rule refused the overlay. */
export type OverlayRule =
  | "root-not-real-directory"
  | "too-many-entries"
  | "path-too-long"
  | "symlink"
  | "not-regular-file"
  | "too-many-files"
  | "no-files"
  | "outside-skill-tree"
  | "unknown-skill"
  | "not-markdown"
  | "too-large"
  | "unstable-read"
  | "hard-link";

/** A refused overlay: the offending file (overlay-relative; null for the root) and the rule. */
export interface OverlayRefusal {
  readonly file: string | null;
  readonly rule: OverlayRule;
  readonly message: string;
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: OverlayRefusal };

function refuse(file: string | null, rule: OverlayRule, message: string): { ok: false; error: OverlayRefusal } {
  return { ok: false, error: { file, rule, message } };
}

/**
 * Checks one overlay-relative path with the one overlay path rule (@wfbench/promotion-gate `checkOverlayPath`, the
 * rule applyPromotedOverlay enforces again at apply time), `<skill>` one of the suite's evaluated skills. Returns the
 * refusal naming the file, or null; trusts nothing in the path.
 */
export function checkCandidatePath(relativePath: string, skills: SuiteSkills): OverlayRefusal | null {
  const refused = checkOverlayPath(relativePath, listSuiteSkills(skills));
  return refused === null ? null : { file: relativePath, rule: refused.rule, message: refused.message };
}

/** The suite's evaluated skills, the only ones an overlay may replace. */
export function listSuiteSkills(skills: SuiteSkills): readonly string[] {
  return [skills.plan, skills.work, skills.review];
}

async function walk(root: string, relative: string, state: { entries: number; files: string[] }): Promise<OverlayRefusal | null> {
  // Listed through the directory opened no-follow component by component: a directory swapped for a link after it
  // was seen is refused, never followed. The listing is bounded by the entries left, so a directory of millions of
  // names is refused after reading one past the bound, never held whole.
  const left = OVERLAY_LIMITS.maxEntries - state.entries;
  let listed;
  try {
    listed = await listUnderRoot(root, relative, left);
  } catch (error) {
    if (isDurableFsError(error) && error.code === "DURABLE_FS_TOO_LARGE") return { file: relative === "" ? null : relative, rule: "too-many-entries", message: `the overlay holds more than ${OVERLAY_LIMITS.maxEntries} entries` };
    throw error;
  }
  for (const entry of listed.sort((a, b) => compareCodePoints(a.name, b.name))) {
    state.entries += 1;
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (Buffer.byteLength(rel, "utf8") > OVERLAY_LIMITS.maxPathBytes) return { file: rel, rule: "path-too-long", message: `longer than ${OVERLAY_LIMITS.maxPathBytes} bytes` };
    if (entry.isSymbolicLink()) return { file: rel, rule: "symlink", message: "symlinks are not allowed in an overlay" };
    if (entry.isDirectory()) {
      const nested = await walk(root, rel, state);
      if (nested !== null) return nested;
    } else if (entry.isFile()) {
      state.files.push(rel);
      if (state.files.length > OVERLAY_LIMITS.maxFiles) return { file: rel, rule: "too-many-files", message: `the overlay holds more than ${OVERLAY_LIMITS.maxFiles} files` };
    } else return { file: rel, rule: "not-regular-file", message: "only regular files are allowed in an overlay" };
  }
  return null;
}

/**
 * Reads one file with no link followed in any component (@wfbench/durable-fs readFileUnderRoot), refusing a file
 * that is not regular, is hard-linked elsewhere (its bytes would be some other path's, e.g. a host file the overlay's
 * author could read but not copy in plainly), is over the bound, or changes while read.
 */
async function readStable(root: string, rel: string): Promise<Uint8Array | OverlayRefusal> {
  let read;
  try {
    read = await readFileUnderRoot(root, rel, OVERLAY_LIMITS.maxTotalBytes);
  } catch (error) {
    if (!isDurableFsError(error)) throw error;
    if (error.code === "DURABLE_FS_NOT_FOLLOWED") return { file: rel, rule: "unstable-read", message: "could not be opened without following a link" };
    if (error.code === "DURABLE_FS_TOO_LARGE") return { file: rel, rule: "too-large", message: `larger than ${OVERLAY_LIMITS.maxTotalBytes} bytes, or changed while being read` };
    throw error;
  }
  if (read.nlink > 1) return { file: rel, rule: "hard-link", message: `hard-linked elsewhere (${read.nlink} links): overlay files must be the overlay's own` };
  return read.bytes;
}

/**
 * Reads and validates a candidate overlay directory (reference §9.4, with the suite's evaluated skill names in place of
 * the original's fixed `gitnexus-*` set): a real non-symlink root whose resolved path is its lexical path, at most 256
 * entries, 64 regular Markdown files under `.claude/skills/<skill>/`, no links or special files, no file with a second
 * hard link, 4 MiB in all, read with no link followed in any component. Returns the files and the `[incumbent, candidate]` arm list they require, or the first refusal (file and
 * rule). Trusts nothing in the directory; throws only on filesystem errors other than the refusals.
 */
export async function readCandidateOverlay(root: string, skills: SuiteSkills): Promise<Outcome<CandidateOverlay>> {
  const lexical = resolve(root);
  const rootStat = await lstat(lexical).catch(() => null);
  if (rootStat === null || !rootStat.isDirectory()) return refuse(null, "root-not-real-directory", `${lexical} is not a real (non-symlink) directory`);
  if ((await realpath(lexical)) !== lexical) return refuse(null, "root-not-real-directory", `${lexical} resolves elsewhere (a linked parent): pass its real path`);
  const state = { entries: 0, files: [] as string[] };
  const walked = await walk(lexical, "", state);
  if (walked !== null) return { ok: false, error: walked };
  if (state.files.length === 0) return refuse(null, "no-files", "the overlay holds no files");
  state.files.sort(compareCodePoints);
  const files: CandidateOverlayFile[] = [];
  let total = 0;
  for (const rel of state.files) {
    const bad = checkCandidatePath(rel, skills);
    if (bad !== null) return { ok: false, error: bad };
    const bytes = await readStable(lexical, rel);
    if (!(bytes instanceof Uint8Array)) return { ok: false, error: bytes };
    total += bytes.length;
    if (total > OVERLAY_LIMITS.maxTotalBytes) return refuse(rel, "too-large", `the overlay exceeds ${OVERLAY_LIMITS.maxTotalBytes} bytes in all`);
    files.push({ path: rel, bytes });
  }
  const touched = [...new Set(files.map((f) => f.path.split("/")[2] as string))].sort(compareCodePoints);
  const requiredArms: CandidateOverlay["requiredArms"][number][] = [];
  // §2.1: a plan or work overlay is measured on the full workflow; a work overlay also on workflow_direct.
  if (touched.includes(skills.plan) || touched.includes(skills.work)) requiredArms.push("workflow", "candidate_workflow");
  if (touched.includes(skills.work)) requiredArms.push("workflow_direct", "candidate_workflow_direct");
  // The original inserts ce_review first; CE arms are not supported here, so the review pair is measured alone.
  if (touched.includes(skills.review)) requiredArms.push("review", "candidate_review");
  return { ok: true, value: { root: lexical, files, skills: touched, requiredArms } };
}
