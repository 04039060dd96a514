import { lstat, readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { readFileUnderRoot } from "@wfbench/durable-fs";
import { RecoveryJournalSchema, checkOverlayPath, listMirrorTargets, recoverOverlayTransaction } from "@wfbench/promotion-gate";
import { EvolveLoopError } from "./errors.js";

const JOURNAL_NAME = /^\.wfbench-overlay-recovery-.*\.json$/u;
/** The apply's temporaries: `.wfevolve-<32 hex>` beside their destination (promotion-gate's naming). */
const TEMPORARY_NAME = /^\.wfevolve-[0-9a-f]{32}$/u;
/** A journal names at most a few hundred files; anything larger is not one. */
const MAX_JOURNAL_BYTES = 4 * 1024 * 1024;

/** The canonical overlay path a destination belongs to, when it is the canonical path or one of its mirrors. */
function isOverlayDestination(target: string, skills: readonly string[]): boolean {
  const parts = target.split("/");
  if (parts.length < 4) return false;
  // Every destination is `.claude/skills/<skill>/<rest>` or `<mirror>/skills/<skill>/<rest>` (two-part mirror roots).
  const canonical = `.claude/skills/${parts.slice(2).join("/")}`;
  return checkOverlayPath(canonical, skills) === null && listMirrorTargets(canonical).includes(target);
}

/** Every existing ancestor of `target` below `repoRoot` must be a real directory; a missing one ends the walk. */
async function linkedAncestor(repoRoot: string, target: string): Promise<string | null> {
  let current = repoRoot;
  for (const part of target.split("/").slice(0, -1)) {
    current = join(current, part);
    const info = await lstat(current).catch(() => null);
    if (info === null) return null;
    if (!info.isDirectory()) return current;
  }
  return null;
}

/**
 * Why the journal `repoRoot/name` is not one the apply transaction wrote, or null. The journal lies in the user's
 * working tree, so it is untrusted: it must be an owner-only regular file of this user with one link (the apply writes
 * it 0600; a checked-out or copied file is not), and every entry must name a destination of the overlay path rule under
 * this root (no link on the way) and temporaries with the apply's own names beside it. Recovery unlinks and renames
 * the paths a journal names, so a planted one would otherwise delete or replace any file this user can write.
 */
async function refuseJournal(repoRoot: string, name: string, skills: readonly string[]): Promise<string | null> {
  const path = join(repoRoot, name);
  const info = await lstat(path);
  if (!info.isFile()) return "is not a regular file (a link or special file)";
  if ((info.mode & 0o077) !== 0) return "is not owner-only (the apply writes it 0600; a checked-out or copied file is not its journal)";
  if (info.nlink > 1) return "is hard-linked elsewhere";
  if (typeof process.getuid === "function" && info.uid !== process.getuid()) return "belongs to another user";
  let parsed;
  try {
    parsed = RecoveryJournalSchema.safeParse(JSON.parse((await readFileUnderRoot(repoRoot, name, MAX_JOURNAL_BYTES)).bytes.toString("utf8")));
  } catch (error) {
    return `is unreadable as a recovery journal (${(error as Error).message})`;
  }
  if (!parsed.success) return `is a malformed recovery journal (${parsed.error.issues[0]?.message ?? "invalid"})`;
  for (const entry of parsed.data.backups) {
    const where = `entry ${JSON.stringify(entry.target)}`;
    if (!isOverlayDestination(entry.target, skills)) return `${where} is not a skill file or mirror of this suite's skills`;
    if (entry.destination !== join(repoRoot, entry.target)) return `${where} names the destination ${JSON.stringify(entry.destination)}, not ${join(repoRoot, entry.target)}`;
    for (const temporary of [entry.candidate, entry.backup]) {
      if (dirname(temporary) !== dirname(entry.destination) || !TEMPORARY_NAME.test(basename(temporary))) return `${where} names the temporary ${JSON.stringify(temporary)}, not a .wfevolve-<32 hex> file beside its destination`;
    }
    const linked = await linkedAncestor(repoRoot, entry.target);
    if (linked !== null) return `${where}: ${linked} is a link or not a directory`;
  }
  return null;
}

/**
 * Finishes any interrupted apply in the repository (its recovery journals), before a new apply starts; `print` gets one
 * line per recovered journal. Only a journal the apply itself could have written is acted on (see refuseJournal).
 * Throws EVOLVE_LOOP_BAD_INPUT, touching nothing the journal names, for a journal that is refused or cannot be
 * recovered.
 */
export async function recoverInterruptedApply(repoRoot: string, skills: readonly string[], print: (line: string) => void): Promise<void> {
  for (const name of (await readdir(repoRoot)).sort()) {
    if (!JOURNAL_NAME.test(name)) continue;
    const refused = await refuseJournal(repoRoot, name, skills);
    if (refused !== null) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `${join(repoRoot, name)} ${refused}: it is not a recovery journal this apply wrote, so nothing it names was touched; inspect it, restore the skill files by hand and remove it before --apply`);
    const recovered = recoverOverlayTransaction(join(repoRoot, name));
    if (!recovered.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `${join(repoRoot, name)}: ${recovered.error.message}: inspect it and restore the skill files by hand before --apply`);
    print(`recovered an interrupted apply (${name}): ${recovered.value.outcome}${recovered.value.restored.length === 0 ? "" : `, restored ${recovered.value.restored.join(", ")}`}\n`);
  }
}
