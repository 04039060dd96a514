import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { CellPipelineError } from "./errors.js";

/** Fingerprint bound (reference Appendix A, MAX_SKILL_FINGERPRINT_BYTES). */
export const MAX_SKILL_FINGERPRINT_BYTES = 4 * 1024 * 1024;

function frame(hash: ReturnType<typeof createHash>, bytes: Buffer): void {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(bytes.length));
  hash.update(length);
  hash.update(bytes);
}

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
 * The skill fingerprint of reference §4.5: every regular file under `.claude/skills/<skill>/` for each skill, sorted
 * by worktree-relative path, framed (8-byte big-endian length, path, length, bytes) into one sha256. Refuses
 * symlinks, special files, a missing or linked skill directory and more than 4 MiB; returns null for no skills.
 */
export async function computeSkillFingerprint(worktree: string, skills: readonly string[]): Promise<string | null> {
  if (skills.length === 0) return null;
  const files: string[] = [];
  for (const skill of skills) {
    let walked = worktree;
    for (const part of [".claude", "skills", skill]) {
      walked = join(walked, part);
      await realDirectory(walked, `.claude/skills/${skill} (${part})`);
    }
    await collect(worktree, `.claude/skills/${skill}`, files);
  }
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  let total = 0;
  for (const rel of files) {
    const content = await readFile(join(worktree, rel));
    total += content.length;
    if (total > MAX_SKILL_FINGERPRINT_BYTES) throw new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", "evaluated skills exceed 4 MiB");
    frame(hash, Buffer.from(rel, "utf8"));
    frame(hash, content);
  }
  return hash.digest("hex");
}
