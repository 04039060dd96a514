import { digestFileTree, type TreeFile } from "@wfbench/digest";
import { isDurableFsError, listUnderRoot, readFileUnderRoot } from "@wfbench/durable-fs";
import { CellPipelineError } from "./errors.js";

/** Fingerprint bound (reference Appendix A, MAX_SKILL_FINGERPRINT_BYTES). */
export const MAX_SKILL_FINGERPRINT_BYTES = 4 * 1024 * 1024;

function invalid(message: string, cause?: unknown): CellPipelineError {
  return new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", message, cause === undefined ? undefined : { cause });
}

// A link anywhere on the way, a missing directory or an over-large file is a skill tree that cannot be vouched for;
// any other filesystem error is the environment's and propagates.
async function refusingLinks<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isDurableFsError(error)) throw error;
    if (error.code === "DURABLE_FS_NOT_FOLLOWED") throw invalid(`${what} is a symlink, special file or not a real directory`, error);
    if (error.code === "DURABLE_FS_TOO_LARGE") throw invalid("evaluated skills exceed 4 MiB", error);
    if (error.errno === "ENOENT") throw invalid(`${what} is missing`, error);
    throw error;
  }
}

async function collect(worktree: string, relative: string, out: string[]): Promise<void> {
  for (const entry of await refusingLinks(relative, () => listUnderRoot(worktree, relative))) {
    const rel = `${relative}/${entry.name}`;
    if (entry.isDirectory()) await collect(worktree, rel, out);
    else if (entry.isFile()) out.push(rel);
    else throw invalid(`${rel} is a symlink or special file`);
  }
}

/**
 * The skill fingerprint of reference §4.5: every regular file under `.claude/skills/<skill>/` for each skill, through
 * @wfbench/digest's file-tree digest (code-point order, path and content framed), so a candidate row's skill_digest
 * is exactly its overlay digest. Every directory and file is reached with no link followed in any component
 * (@wfbench/durable-fs), so a `.claude` or `skills` swapped for a link to the host is refused, not read. Refuses
 * symlinks, special files, a missing or linked skill directory and more than 4 MiB; returns null for no skills.
 */
export async function computeSkillFingerprint(worktree: string, skills: readonly string[]): Promise<string | null> {
  if (skills.length === 0) return null;
  const paths: string[] = [];
  for (const skill of skills) await collect(worktree, `.claude/skills/${skill}`, paths);
  const files: TreeFile[] = [];
  let total = 0;
  for (const path of paths) {
    const { bytes } = await refusingLinks(path, () => readFileUnderRoot(worktree, path, MAX_SKILL_FINGERPRINT_BYTES - total));
    total += bytes.length;
    files.push({ path, bytes });
  }
  return digestFileTree(files);
}
