import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { readCandidateOverlay, type CandidateOverlay } from "@wfbench/cell-pipeline";
import { fsyncDirectory } from "@wfbench/durable-fs";
import { computeOverlayDigest } from "@wfbench/promotion-gate";
import type { SuiteSkills } from "@wfbench/task-suite";
import { EvolveLoopError } from "./errors.js";

/** A validated overlay frozen into a directory evolve owns: its files, digest and the arms it must be measured with. */
export interface FrozenOverlay {
  readonly root: string;
  readonly overlay: CandidateOverlay;
  readonly digest: string;
}

/**
 * Validates `source` with the runner's own reader (reference §9.4), copies it into `dest` (which must not exist) with
 * files 0400 and directories 0500, and re-reads the copy: its digest must equal the source's. Throws
 * EvolveLoopError: EVOLVE_LOOP_BAD_INPUT naming the file and rule for an invalid overlay, EVOLVE_LOOP_FREEZE_FAILED
 * when the copy does not re-digest.
 */
export async function freezeOverlay(source: string, dest: string, skills: SuiteSkills): Promise<FrozenOverlay> {
  const read = await readCandidateOverlay(source, skills);
  if (!read.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `overlay ${source}: ${read.error.file ?? "(overlay root)"}: rule ${read.error.rule}: ${read.error.message}`);
  const digest = computeOverlayDigest(read.value.files);
  await mkdir(dirname(dest), { recursive: true });
  await mkdir(dest, { mode: 0o700 });
  const dirs = new Set<string>([dest]);
  for (const file of read.value.files) {
    const target = join(dest, file.path);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    for (let dir = dirname(target); dir !== dest && relative(dest, dir) !== ""; dir = dirname(dir)) dirs.add(dir);
    await writeFile(target, file.bytes, { mode: 0o400, flag: "wx" });
    await chmod(target, 0o400);
  }
  // Deepest first, so a parent is sealed only after its children are written.
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    await fsyncDirectory(dir);
    await chmod(dir, 0o500);
  }
  const reread = await readCandidateOverlay(dest, skills);
  if (!reread.ok) throw new EvolveLoopError("EVOLVE_LOOP_FREEZE_FAILED", `frozen overlay ${dest} no longer reads as an overlay (${reread.error.rule}: ${reread.error.message})`);
  const again = computeOverlayDigest(reread.value.files);
  if (again !== digest) throw new EvolveLoopError("EVOLVE_LOOP_FREEZE_FAILED", `frozen overlay ${dest} digests to ${again}, its source ${source} to ${digest}: the source changed while it was copied; rerun`);
  return { root: dest, overlay: reread.value, digest };
}
