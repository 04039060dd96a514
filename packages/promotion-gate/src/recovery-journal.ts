import * as nodePath from "node:path";
import { canonicalJson, sha256Hex } from "@wfbench/digest";
import { z } from "zod";
import { OverlayTransactionError } from "./errors.js";
import { nodeFsOperations, walkAncestors, type FileIdentity, type FsOperations } from "./fs-operations.js";
import { isOverlayDestination, isOverlayTemporaryName } from "./overlay-files.js";
import type { Result } from "./result.js";

/** Per-destination state recorded in the recovery journal. */
export const JournalEntrySchema = z.object({
  target: z.string(),
  destination: z.string(),
  candidate: z.string(),
  candidate_exists: z.boolean(),
  backup: z.string(),
  backup_exists: z.boolean(),
  state: z.enum(["pending", "staging", "staged", "published", "rolled-back", "rollback-failed", "untouched"]),
  base_sha256: z.string(),
  candidate_sha256: z.string(),
  original_ino: z.string(),
  candidate_ino: z.string(),
});

/** One destination of the journal. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

const RECOVERY_JOURNAL_NAME = /^\.wfbench-overlay-recovery-\d{8}T\d{12}Z\.json$/u;

/**
 * True when `name` (a file name, not a path) is one the apply gives its recovery journal
 * (`.wfbench-overlay-recovery-<%Y%m%dT%H%M%S%fZ>.json` in the repository root); trusts nothing about the name, and a
 * true answer says nothing about the file: recoverOverlayTransaction still checks it is the apply's own.
 */
export function isRecoveryJournalName(name: string): boolean {
  return RECOVERY_JOURNAL_NAME.test(name);
}

/** The journal name for a `%Y%m%dT%H%M%S%fZ` stamp: the one form isRecoveryJournalName accepts. */
export function recoveryJournalName(stamp: string): string {
  return `.wfbench-overlay-recovery-${stamp}.json`;
}

/** The recovery file (`.wfbench-overlay-recovery-<UTC stamp>.json`, mode 0600) in the repository root. */
export const RecoveryJournalSchema = z.object({
  failure: z.string().nullable(),
  transaction_state: z.enum(["in-progress", "published", "rolled-back", "rollback-incomplete"]),
  rollback_failures: z.array(z.string()),
  backups: z.array(JournalEntrySchema),
});

/** The recovery journal. */
export type RecoveryJournal = z.infer<typeof RecoveryJournalSchema>;

/**
 * Replaces the journal atomically (temp file, fsync, rename, fsync the directory) so a reader never sees half of it;
 * trusts the caller's path, refuses nothing, throws the underlying filesystem error.
 */
export function writeRecoveryJournal(fsOps: FsOperations, journalPath: string, journal: RecoveryJournal, suffix: string): void {
  const temporary = `${journalPath}.${suffix}.tmp`;
  try {
    fsOps.writeFileExclusive(temporary, Buffer.from(`${canonicalJson(journal)}\n`, "utf8"), 0o600);
    fsOps.rename(temporary, journalPath);
  } catch (error) {
    try {
      fsOps.unlink(temporary);
    } catch {
      // Already gone (the rename landed) or unremovable; the original error is the one that matters.
    }
    throw error;
  }
  fsOps.fsyncDirectory(nodePath.dirname(journalPath));
}

function existsForReport(fsOps: FsOperations, path: string): boolean {
  try {
    return exists(fsOps, path);
  } catch {
    return true;
  }
}

/** What a recovery did. */
export interface RecoveryOutcome {
  /** "rolled-back": every destination holds its original bytes; "completed": a published transaction was cleaned up. */
  readonly outcome: "rolled-back" | "completed";
  readonly restored: readonly string[];
}

/** Stable codes of RecoveryRefusal; callers branch on these, never on messages. */
export type RecoveryRefusalCode =
  /** The journal could not be read (missing, permission, I/O) or changed while it was read. */
  | "journal-unreadable"
  /** Not JSON, or not the recovery journal schema. */
  | "journal-malformed"
  /** Not a file the apply wrote: a symlink or special file, group/other permission bits, a second hard link, another user's, or too large. */
  | "journal-untrusted"
  /** An entry names a path the apply never names: a target outside the overlay destinations (or `skills`), a destination other than the target under the journal's directory, a temporary not `.wfevolve-<32 hex>` beside it. */
  | "invalid-entry"
  /** An entry's destination is reached through a symlink or a non-directory below the journal's directory. */
  | "invalid-destination";

/** Why a recovery journal could not be used; nothing it names was touched. */
export interface RecoveryRefusal {
  readonly code: RecoveryRefusalCode;
  readonly message: string;
}

/** Options of recoverOverlayTransaction. */
export interface RecoveryOptions {
  /** The suite's evaluated skill names: when given, every entry must be a skill file or mirror of one of them. */
  readonly skills?: readonly string[];
}

/** A journal names a few hundred files at most; anything larger is not one the apply wrote. */
const MAX_RECOVERY_JOURNAL_BYTES = 4 * 1024 * 1024;

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function refuse(code: RecoveryRefusalCode, message: string): { ok: false; error: RecoveryRefusal } {
  return { ok: false, error: { code, message } };
}

/**
 * Reads the journal only when it can be the apply's own: the apply writes it 0600 with exclusive create and rename,
 * so a symlink, a file with group/other bits (what a checkout or copy leaves), a second hard link, another user's
 * file or an oversized one is planted, and recovery would unlink and rename whatever it names.
 */
function readJournal(fsOps: FsOperations, journalPath: string): Result<RecoveryJournal, RecoveryRefusal> {
  let before: FileIdentity;
  try {
    before = fsOps.lstat(journalPath);
  } catch (error) {
    return refuse("journal-unreadable", `recovery journal is unreadable: ${describeError(error)}`);
  }
  if (before.kind !== "file") return refuse("journal-untrusted", "recovery journal is not a regular file (a symlink, directory or special file): the apply writes a regular file");
  if ((before.mode & 0o077) !== 0) {
    return refuse("journal-untrusted", `recovery journal is not owner-only (mode ${before.mode.toString(8).padStart(4, "0")}): the apply writes it 0600, so a checked-out or copied file is not its journal`);
  }
  if (before.nlink > 1) return refuse("journal-untrusted", `recovery journal is hard-linked elsewhere (${before.nlink} links): the apply writes it under one name`);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && before.uid !== undefined && before.uid !== uid) return refuse("journal-untrusted", `recovery journal belongs to another user (uid ${before.uid}, not ${uid})`);
  if (before.size > BigInt(MAX_RECOVERY_JOURNAL_BYTES)) return refuse("journal-untrusted", `recovery journal is larger than ${MAX_RECOVERY_JOURNAL_BYTES} bytes: no apply writes one that large`);
  let bytes: Buffer;
  try {
    bytes = fsOps.readFile(journalPath);
    const after = fsOps.lstat(journalPath);
    // The checks above hold only for the file they looked at: a swap between them and the read is refused.
    if (after.dev !== before.dev || after.ino !== before.ino || after.size !== before.size || after.mtimeNs !== before.mtimeNs) {
      return refuse("journal-unreadable", "recovery journal is unreadable: it changed while it was being read");
    }
  } catch (error) {
    return refuse("journal-unreadable", `recovery journal is unreadable: ${describeError(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    return refuse("journal-malformed", `recovery journal is malformed: ${describeError(error)}`);
  }
  const parsed = RecoveryJournalSchema.safeParse(json);
  if (!parsed.success) return refuse("journal-malformed", `recovery journal is malformed: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return { ok: true, value: parsed.data };
}

/**
 * Refuses every entry the apply could not have written, before recovery touches any of them: the apply writes its
 * journal in the repository root, each destination as root/target for an overlay destination target, and its two
 * temporaries as `.wfevolve-<32 hex>` beside the destination, under real directories only.
 */
function checkEntries(fsOps: FsOperations, root: string, journal: RecoveryJournal, options: RecoveryOptions): RecoveryRefusal | null {
  for (const entry of journal.backups) {
    const where = `recovery journal entry ${JSON.stringify(entry.target)}`;
    if (!isOverlayDestination(entry.target, options.skills)) {
      const expected = options.skills === undefined ? "a skill file or shipped mirror (.claude/skills/<skill>/….md)" : `a skill file or shipped mirror of ${options.skills.join(", ")}`;
      return { code: "invalid-entry", message: `${where}: the target is not ${expected}` };
    }
    const destination = nodePath.join(root, entry.target);
    if (entry.destination !== destination) {
      return { code: "invalid-entry", message: `${where} names the destination ${JSON.stringify(entry.destination)}, not ${JSON.stringify(destination)} (its target under the journal's directory)` };
    }
    for (const temporary of [entry.candidate, entry.backup]) {
      if (nodePath.dirname(temporary) !== nodePath.dirname(destination) || !isOverlayTemporaryName(nodePath.basename(temporary))) {
        return { code: "invalid-entry", message: `${where} names the temporary ${JSON.stringify(temporary)}, not a .wfevolve-<32 hex> file beside its destination` };
      }
    }
    // A missing ancestor holds nothing to unlink or rename; recovery reports that entry as it always has.
    const walked = walkAncestors(fsOps, root, entry.target);
    if (!walked.ok && walked.error.kind !== "missing") return { code: "invalid-destination", message: `${where}: ${walked.error.message}` };
  }
  return null;
}

/** Only a clean ENOENT means absent; any other error propagates so recovery never guesses. */
function exists(fsOps: FsOperations, path: string): boolean {
  if (path === "") return false;
  try {
    fsOps.lstat(path);
    return true;
  } catch (error) {
    if (typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Finishes an interrupted or incomplete apply from its recovery journal: a published transaction only loses its
 * backups; any other state is rolled back by inode and digest (a destination is restored only while it still holds
 * exactly the candidate bytes, so a concurrent edit is never overwritten). Trusts a journal only once it is one the
 * apply could have written (an owner-only regular file of this user with one link, every entry an overlay destination
 * under the journal's directory (of `options.skills` when given) with `.wfevolve-<32 hex>` temporaries beside it and no
 * symlinked ancestor), and then only for paths and digests it re-checks. Returns a RecoveryRefusal, touching nothing,
 * for any other journal; throws OverlayTransactionError (PROMOTION_APPLY_ROLLBACK_INCOMPLETE) and rewrites the journal
 * when some destination cannot be restored.
 */
export function recoverOverlayTransaction(
  journalPath: string,
  fsOps: FsOperations = nodeFsOperations,
  options: RecoveryOptions = {},
): Result<RecoveryOutcome, RecoveryRefusal> {
  const read = readJournal(fsOps, journalPath);
  if (!read.ok) return read;
  const journal = read.value;
  let root: string;
  try {
    // The apply writes destinations under the real repository root, which is the journal's real directory.
    root = fsOps.realpath(nodePath.dirname(nodePath.resolve(journalPath)));
  } catch (error) {
    return refuse("journal-unreadable", `recovery journal is unreadable: its directory cannot be resolved (${describeError(error)})`);
  }
  const refused = checkEntries(fsOps, root, journal, options);
  if (refused !== null) return { ok: false, error: refused };
  const failures: string[] = [];
  const restored: string[] = [];
  const directories = new Set<string>();
  const published = journal.transaction_state === "published";
  const entries = journal.backups.map((entry) => ({ ...entry }));
  for (const entry of entries) {
    directories.add(nodePath.dirname(entry.destination));
    try {
      if (published) {
        if (exists(fsOps, entry.backup)) fsOps.unlink(entry.backup);
        if (exists(fsOps, entry.candidate)) fsOps.unlink(entry.candidate);
        continue;
      }
      if (exists(fsOps, entry.candidate)) {
        // The candidate name still exists, so this destination was never swapped: only temporaries remain.
        fsOps.unlink(entry.candidate);
        if (exists(fsOps, entry.backup)) fsOps.unlink(entry.backup);
        entry.state = "untouched";
        continue;
      }
      if (!exists(fsOps, entry.backup)) {
        // An earlier recovery killed midway leaves the journal as it was: a destination already back on its base bytes
        // has been restored, not lost.
        if (exists(fsOps, entry.destination) && sha256Hex(fsOps.readFile(entry.destination)) === entry.base_sha256) {
          entry.state = entry.state === "published" || entry.state === "rollback-failed" ? "rolled-back" : "untouched";
          continue;
        }
        entry.state = entry.state === "published" || entry.state === "rollback-failed" ? "rollback-failed" : "untouched";
        if (entry.state === "rollback-failed") failures.push(`${entry.target}: backup ${entry.backup} is missing`);
        continue;
      }
      const destinationSha = sha256Hex(fsOps.readFile(entry.destination));
      const backup = fsOps.lstat(entry.backup);
      if (destinationSha === entry.base_sha256 && String(backup.ino) === entry.original_ino && !exists(fsOps, entry.candidate)) {
        const destination = fsOps.lstat(entry.destination);
        if (destination.ino === backup.ino) {
          // Staged but never swapped: the backup is a second name of the original.
          fsOps.unlink(entry.backup);
          entry.state = "untouched";
          continue;
        }
      }
      if (destinationSha !== entry.candidate_sha256) {
        entry.state = "rollback-failed";
        failures.push(`${entry.target}: destination changed after publish; left in place to preserve the concurrent edit`);
        continue;
      }
      if (String(backup.ino) !== entry.original_ino) {
        entry.state = "rollback-failed";
        failures.push(`${entry.target}: backup no longer holds the original file`);
        continue;
      }
      fsOps.rename(entry.backup, entry.destination);
      entry.state = "rolled-back";
      restored.push(entry.target);
    } catch (error) {
      entry.state = "rollback-failed";
      failures.push(`${entry.target}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const directory of directories) {
    try {
      fsOps.fsyncDirectory(directory);
    } catch (error) {
      failures.push(`could not fsync ${directory}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) {
    const next: RecoveryJournal = {
      failure: journal.failure,
      transaction_state: published ? "published" : "rollback-incomplete",
      rollback_failures: failures,
      backups: entries.map((entry) => ({ ...entry, candidate_exists: existsForReport(fsOps, entry.candidate), backup_exists: existsForReport(fsOps, entry.backup) })),
    };
    try {
      writeRecoveryJournal(fsOps, journalPath, next, sha256Hex(Buffer.from(failures.join("\n"))).slice(0, 32));
    } catch {
      // The old journal still names every file; the thrown error carries the new failures.
    }
    throw new OverlayTransactionError(
      "PROMOTION_APPLY_ROLLBACK_INCOMPLETE",
      `recovery was incomplete; recovery: ${journalPath}`,
      { transactionState: next.transaction_state === "published" ? "published" : "rollback-incomplete", recoveryPath: journalPath, rollbackFailures: failures },
    );
  }
  fsOps.unlink(journalPath);
  fsOps.fsyncDirectory(nodePath.dirname(journalPath));
  return { ok: true, value: { outcome: published ? "completed" : "rolled-back", restored } };
}
