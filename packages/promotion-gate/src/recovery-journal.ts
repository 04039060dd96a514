import * as nodePath from "node:path";
import { canonicalJson, sha256Hex } from "@wfbench/digest";
import { z } from "zod";
import { OverlayTransactionError } from "./errors.js";
import { nodeFsOperations, type FsOperations } from "./fs-operations.js";
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

/** Why a recovery journal could not be used. */
export interface RecoveryRefusal {
  readonly message: string;
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
 * exactly the candidate bytes, so a concurrent edit is never overwritten). Trusts the journal only for paths and
 * digests it then re-checks; returns a refusal for an unreadable journal; throws OverlayTransactionError
 * (PROMOTION_APPLY_ROLLBACK_INCOMPLETE) and rewrites the journal when some destination cannot be restored.
 */
export function recoverOverlayTransaction(journalPath: string, fsOps: FsOperations = nodeFsOperations): Result<RecoveryOutcome, RecoveryRefusal> {
  let journal: RecoveryJournal;
  try {
    const parsed = RecoveryJournalSchema.safeParse(JSON.parse(fsOps.readFile(journalPath).toString("utf8")));
    if (!parsed.success) return { ok: false, error: { message: `recovery journal is malformed: ${parsed.error.issues[0]?.message ?? "invalid"}` } };
    journal = parsed.data;
  } catch (error) {
    return { ok: false, error: { message: `recovery journal is unreadable: ${error instanceof Error ? error.message : String(error)}` } };
  }
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
