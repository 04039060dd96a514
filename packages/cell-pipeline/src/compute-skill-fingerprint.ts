import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { digestFileTree, type TreeFile } from "@wfbench/digest";
import { CellPipelineError } from "./errors.js";

/** Fingerprint bound (reference Appendix A, MAX_SKILL_FINGERPRINT_BYTES). */
export const MAX_SKILL_FINGERPRINT_BYTES = 4 * 1024 * 1024;

async function realDirectory(path: string, label: string): Promise<void> {
  const stat = await lstat(path).catch(() => null);
  if (stat === null || !stat.isDirectory()) throw new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", `${label} is not a real directory`);
}

async function collect(root: string, relative: string, out: string[]): Promise<void> {
  for (const entry of await readdir(join(root, relative), { withFileTypes: true })) {
    const rel = `${relative}/${entry.name}`;
    if (entry.isDirectory()) await collect(root, rel, out);
    else if (entry.isFile()) out.push(rel);
    else throw new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", `${rel} is a symlink or special file`);
  }
}

/**
 * The skill fingerprint of reference §4.5: every regular file under `.claude/skills/<skill>/` for each skill, through
 * @wfbench/digest's file-tree digest (code-point order, path and content framed), so a candidate row's skill_digest
 * is exactly its overlay digest. Refuses symlinks, special files, a missing or linked skill directory and more than
 * 4 MiB; returns null for no skills.
 */
export async function computeSkillFingerprint(worktree: string, skills: readonly string[]): Promise<string | null> {
  if (skills.length === 0) return null;
  const paths: string[] = [];
  for (const skill of skills) {
    let walked = worktree;
    for (const part of [".claude", "skills", skill]) {
      walked = join(walked, part);
      await realDirectory(walked, `.claude/skills/${skill} (${part})`);
    }
    await collect(worktree, `.claude/skills/${skill}`, paths);
  }
  const files: TreeFile[] = [];
  let total = 0;
  for (const path of paths) {
    const bytes = await readFile(join(worktree, path));
    total += bytes.length;
    if (total > MAX_SKILL_FINGERPRINT_BYTES) throw new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", "evaluated skills exceed 4 MiB");
    files.push({ path, bytes });
  }
  return digestFileTree(files);
}
