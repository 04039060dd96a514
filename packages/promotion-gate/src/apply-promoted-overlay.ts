import { randomBytes } from "node:crypto";
import * as nodePath from "node:path";
import { compareCodePoints, sha256Hex } from "@wfbench/digest";
import { OverlayTransactionError, type TransactionState } from "./errors.js";
import { holdTerminationSignals } from "./hold-termination-signals.js";
import { nodeFsOperations, walkAncestors, type FileIdentity, type FsOperations } from "./fs-operations.js";
import { checkOverlayPath, computeOverlayDigest, listMirrorTargets, overlayTemporaryName, type OverlayFile } from "./overlay-files.js";
import { recoveryJournalName, writeRecoveryJournal, type JournalEntry, type RecoveryJournal } from "./recovery-journal.js";
import type { Result } from "./result.js";

/** Inputs of applyPromotedOverlay. */
export interface ApplyOverlayInput {
  /** Absolute path of the repository working tree; must not be or pass through a symlink. */
  readonly repoRoot: string;
  readonly files: readonly OverlayFile[];
  /** The suite's evaluated skill names: the only skills an overlay file may replace (the overlay path rule). */
  readonly skills: readonly string[];
  /** The overlay digest the promotion evidence was measured with; refused when the files hash differently. */
  readonly expectedOverlayDigest?: string;
  /** Repository-relative destination → sha256 of its committed base bytes. */
  readonly expectedTargetBases: Readonly<Record<string, string>>;
  /** Used only to name the recovery file; the package never reads a clock. */
  readonly now: Date;
  readonly fsOps?: FsOperations;
  /** 32 lowercase hex characters for temporary names (isOverlayTemporaryName); defaults to crypto randomness. */
  readonly randomHex?: () => string;
}

/** A refusal before anything was written. */
export interface ApplyOverlayRefusal {
  readonly code:
    | "overlay-digest-mismatch"
    | "invalid-overlay-path"
    | "duplicate-target"
    | "invalid-repo-root"
    | "invalid-destination"
    | "base-binding-mismatch";
  readonly message: string;
}

/** The outcome of a clean apply. */
export interface AppliedOverlay {
  /** Written repository-relative paths: every canonical path first, then every mirror. */
  readonly written: readonly string[];
}

interface Target {
  readonly relative: string;
  readonly destination: string;
  readonly directory: string;
  readonly bytes: Uint8Array;
  readonly candidateSha: string;
  baseSha: string;
  original: FileIdentity | null;
  candidate: string;
  backup: string;
  candidateIdentity: FileIdentity | null;
  state: JournalEntry["state"];
}

class Refusal extends Error {
  constructor(readonly refusal: ApplyOverlayRefusal) {
    super(refusal.message);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
}

function sameFile(left: FileIdentity, right: FileIdentity): boolean {
  return left.dev === right.dev && left.ino === right.ino;
}

function formatRecoveryStamp(now: Date): string {
  const pad = (value: number, width: number): string => String(value).padStart(width, "0");
  return (
    `${pad(now.getUTCFullYear(), 4)}${pad(now.getUTCMonth() + 1, 2)}${pad(now.getUTCDate(), 2)}T` +
    `${pad(now.getUTCHours(), 2)}${pad(now.getUTCMinutes(), 2)}${pad(now.getUTCSeconds(), 2)}${pad(now.getUTCMilliseconds() * 1000, 6)}Z`
  );
}

/** The apply refuses any ancestor problem, a missing one included: every destination must already exist. */
function checkAncestors(fsOps: FsOperations, root: string, relative: string): FileIdentity[] {
  const walked = walkAncestors(fsOps, root, relative);
  if (!walked.ok) throw new Refusal({ code: "invalid-destination", message: `${relative}: ${walked.error.message}` });
  return walked.value;
}

function readStable(fsOps: FsOperations, target: Target): { identity: FileIdentity; bytes: Buffer } {
  const before = fsOps.lstat(target.destination);
  if (before.kind !== "file") throw new Error(`${target.relative} is not a regular file`);
  const bytes = fsOps.readFile(target.destination);
  const after = fsOps.lstat(target.destination);
  if (!sameFile(before, after) || before.size !== after.size || before.mtimeNs !== after.mtimeNs || before.mode !== after.mode) {
    throw new Error(`${target.relative} changed while it was being read`);
  }
  return { identity: after, bytes };
}

/**
 * Applies a promoted overlay to the canonical skill tree and its shipped mirrors as one transaction (reference §9.5;
 * every file must pass the overlay path rule for `skills`, and a mirror the repository lacks is skipped only when the
 * promotion bound no base for it): stage every destination, require each to still match its committed base digest, swap them with rename (the
 * original kept as a hard-linked backup, because Node cannot reach renameat2(RENAME_EXCHANGE)), verify byte and inode
 * parity, and roll back every landed file on any failure. SIGINT/SIGTERM/SIGHUP arriving meanwhile are held until the
 * transaction has ended (see holdTerminationSignals). A write-ahead recovery journal in the repository root
 * survives a SIGKILL; it is removed when the transaction ends cleanly and left (with each file's state) when it does
 * not. Trusts only expectedTargetBases and expectedOverlayDigest; refuses symlinked roots, ancestors and
 * destinations, and destinations with more than one hard link. Returns refusals made before any write; throws OverlayTransactionError once writing has begun.
 */
export function applyPromotedOverlay(input: ApplyOverlayInput): Result<AppliedOverlay, ApplyOverlayRefusal> {
  // The transaction is synchronous, so a held signal takes effect only once every file is new or every file is old.
  const release = holdTerminationSignals();
  try {
    return { ok: true, value: runTransaction(input) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, error: error.refusal };
    throw error;
  } finally {
    release();
  }
}

/**
 * A shipped mirror (never the canonical path) that the repository does not hold and the promotion did not bind:
 * the tasks were measured without it (their target bases list only the mirrors that exist), so there is nothing to
 * swap. A mirror that exists without a bound base is still refused later as unexpected.
 */
function isUnboundAbsentMirror(fsOps: FsOperations, input: ApplyOverlayInput, relative: string, destination: string): boolean {
  if (Object.hasOwn(input.expectedTargetBases, relative)) return false;
  try {
    fsOps.lstat(destination);
    return false;
  } catch (error) {
    return isMissing(error);
  }
}

function prepareTargets(input: ApplyOverlayInput, root: string, fsOps: FsOperations): Target[] {
  if (input.files.length === 0) throw new Refusal({ code: "invalid-overlay-path", message: "overlay has no files" });
  for (const file of input.files) {
    const problem = checkOverlayPath(file.path, input.skills);
    if (problem !== null) throw new Refusal({ code: "invalid-overlay-path", message: `${file.path}: ${problem.message}` });
  }
  if (input.expectedOverlayDigest !== undefined && computeOverlayDigest(input.files) !== input.expectedOverlayDigest) {
    throw new Refusal({ code: "overlay-digest-mismatch", message: "overlay no longer matches promotion evidence (digest differs)" });
  }
  const canonical: Target[] = [];
  const mirrors: Target[] = [];
  const seen = new Set<string>();
  for (const file of [...input.files].sort((a, b) => compareCodePoints(a.path, b.path))) {
    const candidateSha = sha256Hex(file.bytes);
    for (const [index, relative] of listMirrorTargets(file.path).entries()) {
      if (seen.has(relative)) throw new Refusal({ code: "duplicate-target", message: `${relative} is targeted twice` });
      seen.add(relative);
      const destination = nodePath.join(root, relative);
      if (index > 0 && isUnboundAbsentMirror(fsOps, input, relative, destination)) continue;
      const target: Target = {
        relative,
        destination,
        directory: nodePath.dirname(destination),
        bytes: file.bytes,
        candidateSha,
        baseSha: "",
        original: null,
        candidate: "",
        backup: "",
        candidateIdentity: null,
        state: "pending",
      };
      (index === 0 ? canonical : mirrors).push(target);
    }
  }
  return [...canonical, ...mirrors];
}

function checkRoot(fsOps: FsOperations, repoRoot: string): { root: string; identity: FileIdentity } {
  const root = nodePath.resolve(repoRoot);
  let identity: FileIdentity;
  let real: string;
  try {
    identity = fsOps.lstat(root);
    real = fsOps.realpath(root);
  } catch (error) {
    throw new Refusal({ code: "invalid-repo-root", message: `repository root is unavailable: ${describe(error)}` });
  }
  if (identity.kind !== "directory" || real !== root) {
    throw new Refusal({ code: "invalid-repo-root", message: "repository root must be a real directory, not a symlink or a path through one" });
  }
  return { root, identity };
}

function runTransaction(input: ApplyOverlayInput): AppliedOverlay {
  const fsOps = input.fsOps ?? nodeFsOperations;
  const randomHex = input.randomHex ?? (() => randomBytes(16).toString("hex"));
  const { root, identity: rootIdentity } = checkRoot(fsOps, input.repoRoot);
  const targets = prepareTargets(input, root, fsOps);

  // Prepare: every destination must already exist as a regular file under real directories.
  const ancestorsBefore = new Map<string, FileIdentity[]>();
  for (const target of targets) {
    ancestorsBefore.set(target.relative, checkAncestors(fsOps, root, target.relative));
    let read: { identity: FileIdentity; bytes: Buffer };
    try {
      read = readStable(fsOps, target);
    } catch (error) {
      throw new Refusal({ code: "invalid-destination", message: `${target.relative}: destination must exist as a regular file (${describe(error)})` });
    }
    // A second name for the inode (a hard link to a file elsewhere) would keep the old bytes after the swap, and its
    // bytes are not the tree's own: refused like a symlink. Only here: the transaction's own backup is a second link.
    if (read.identity.nlink > 1) throw new Refusal({ code: "invalid-destination", message: `${target.relative}: destination is hard-linked elsewhere (${read.identity.nlink} links)` });
    target.original = read.identity;
    target.baseSha = sha256Hex(read.bytes);
  }
  for (const target of targets) {
    const again = checkAncestors(fsOps, root, target.relative);
    const before = ancestorsBefore.get(target.relative) ?? [];
    if (again.length !== before.length || again.some((identity, index) => !sameFile(identity, before[index] as FileIdentity))) {
      throw new Refusal({ code: "invalid-destination", message: `${target.relative}: an ancestor directory was replaced during preparation` });
    }
  }
  const rootAgain = checkRoot(fsOps, input.repoRoot).identity;
  if (!sameFile(rootAgain, rootIdentity)) throw new Refusal({ code: "invalid-repo-root", message: "repository root was replaced during preparation" });

  // Compare: nothing is written unless every destination is exactly the committed base.
  const expected = input.expectedTargetBases;
  const actualRelative = new Set(targets.map((target) => target.relative));
  const missing = Object.keys(expected).filter((key) => !actualRelative.has(key)).sort(compareCodePoints);
  const unexpected = targets.filter((target) => !Object.hasOwn(expected, target.relative)).map((target) => target.relative);
  const drifted = targets.filter((target) => Object.hasOwn(expected, target.relative) && expected[target.relative] !== target.baseSha).map((target) => target.relative);
  if (missing.length + unexpected.length + drifted.length > 0) {
    throw new Refusal({
      code: "base-binding-mismatch",
      message: `overlay destination base binding mismatch: missing=${JSON.stringify(missing)}; unexpected=${JSON.stringify(unexpected)}; drifted=${JSON.stringify(drifted)}`,
    });
  }

  const journalPath = nodePath.join(root, recoveryJournalName(formatRecoveryStamp(input.now)));
  const transaction = new Transaction(fsOps, targets, journalPath, randomHex);
  return transaction.run();
}

class Transaction {
  private journalWritten = false;
  private readonly directories: string[];

  constructor(
    private readonly fsOps: FsOperations,
    private readonly targets: Target[],
    private readonly journalPath: string,
    private readonly randomHex: () => string,
  ) {
    this.directories = [...new Set(targets.map((target) => target.directory))];
  }

  run(): AppliedOverlay {
    try {
      // Names are fixed and journaled before the first write, so a SIGKILL at any later point leaves a journal that
      // names every temporary file.
      for (const target of this.targets) {
        target.candidate = nodePath.join(target.directory, overlayTemporaryName(this.randomHex()));
        target.backup = nodePath.join(target.directory, overlayTemporaryName(this.randomHex()));
      }
      this.writeJournal("in-progress", null, []);
      this.stage();
      this.recheckBases("pre-publication");
      for (const target of this.targets) this.publish(target);
      this.verifyAll();
    } catch (error) {
      this.rollback(error);
    }
    this.cleanupAfterPublish();
    return { written: this.targets.map((target) => target.relative) };
  }

  private stage(): void {
    for (const target of this.targets) {
      const original = target.original as FileIdentity;
      target.state = "staging";
      this.fsOps.writeFileExclusive(target.candidate, target.bytes, original.mode);
      target.candidateIdentity = this.fsOps.lstat(target.candidate);
      // A hard link keeps the original inode itself (bytes, mode, owner, times) under the backup name.
      this.fsOps.link(target.destination, target.backup);
      target.state = "staged";
      const backup = this.fsOps.lstat(target.backup);
      if (!sameFile(backup, original)) throw new Error(`${target.relative} was replaced before its backup was linked`);
      this.fsOps.fsyncDirectory(target.directory);
    }
  }

  private recheckBases(phase: string): void {
    for (const target of this.targets) this.recheckBase(target, phase);
  }

  private recheckBase(target: Target, phase: string): void {
    const current = readStable(this.fsOps, target);
    if (!sameFile(current.identity, target.original as FileIdentity) || sha256Hex(current.bytes) !== target.baseSha) {
      throw new Error(`${phase} check: ${target.relative} no longer matches its base`);
    }
  }

  private publish(target: Target): void {
    this.recheckBase(target, "publish");
    try {
      this.fsOps.rename(target.candidate, target.destination);
      target.state = "published";
    } catch (error) {
      // A rename that reports failure may still have landed; the inode decides.
      if (this.landed(target)) target.state = "published";
      throw error;
    }
    this.fsOps.fsyncDirectory(target.directory);
    this.checkParity(target);
    this.writeJournal("in-progress", null, []);
  }

  private landed(target: Target): boolean {
    try {
      return sameFile(this.fsOps.lstat(target.destination), target.candidateIdentity as FileIdentity);
    } catch {
      // Unknown counts as landed: restore() re-checks identity before it moves anything.
      return true;
    }
  }

  private checkParity(target: Target): void {
    const destination = readStable(this.fsOps, target);
    const candidate = target.candidateIdentity as FileIdentity;
    const original = target.original as FileIdentity;
    const backupIdentity = this.fsOps.lstat(target.backup);
    const backupBytes = this.fsOps.readFile(target.backup);
    let candidateNameGone = false;
    try {
      this.fsOps.lstat(target.candidate);
    } catch (error) {
      if (!isMissing(error)) throw error;
      candidateNameGone = true;
    }
    if (
      !sameFile(destination.identity, candidate) ||
      destination.identity.mode !== original.mode ||
      sha256Hex(destination.bytes) !== target.candidateSha ||
      !sameFile(backupIdentity, original) ||
      sha256Hex(backupBytes) !== target.baseSha ||
      !candidateNameGone
    ) {
      // The reference's stable wording is kept although the swap is a rename plus a hard-linked backup.
      throw new Error(`atomic overlay exchange parity check failed for ${target.relative}`);
    }
  }

  private verifyAll(): void {
    for (const target of this.targets) {
      const current = readStable(this.fsOps, target);
      if (!sameFile(current.identity, target.candidateIdentity as FileIdentity) || sha256Hex(current.bytes) !== target.candidateSha) {
        throw new Error(`final verification failed for ${target.relative}`);
      }
    }
  }

  /** For the journal: anything but a clean ENOENT is reported as present, so a recovery never skips a file. */
  private exists(path: string): boolean {
    if (path === "") return false;
    try {
      this.fsOps.lstat(path);
      return true;
    } catch (error) {
      return !isMissing(error);
    }
  }

  private writeJournal(state: RecoveryJournal["transaction_state"], failure: string | null, rollbackFailures: readonly string[]): void {
    // Set first: a write that reports failure may still have landed, and a journal must never be orphaned.
    this.journalWritten = true;
    writeRecoveryJournal(
      this.fsOps,
      this.journalPath,
      {
        failure,
        transaction_state: state,
        rollback_failures: [...rollbackFailures],
        backups: this.targets.map((target) => ({
          target: target.relative,
          destination: target.destination,
          candidate: target.candidate,
          candidate_exists: this.exists(target.candidate),
          backup: target.backup,
          backup_exists: this.exists(target.backup),
          state: target.state,
          base_sha256: target.baseSha,
          candidate_sha256: target.candidateSha,
          original_ino: String(target.original?.ino ?? ""),
          candidate_ino: String(target.candidateIdentity?.ino ?? ""),
        })),
      },
      this.randomHex(),
    );
  }

  /** Tries to record the final state; a journal that cannot be written leaves recoveryPath null. */
  private recordFinal(state: TransactionState, failure: string, rollbackFailures: readonly string[]): string | null {
    try {
      this.writeJournal(state, failure, rollbackFailures);
      return this.journalPath;
    } catch {
      return this.journalWritten ? this.journalPath : null;
    }
  }

  private removeTemporary(path: string, failures: string[]): void {
    if (path === "") return;
    try {
      this.fsOps.unlink(path);
    } catch (error) {
      if (!isMissing(error)) failures.push(`could not remove ${path}: ${describe(error)}`);
    }
  }

  private syncDirectories(failures: string[]): void {
    for (const directory of this.directories) {
      try {
        this.fsOps.fsyncDirectory(directory);
      } catch (error) {
        failures.push(`could not fsync ${directory}: ${describe(error)}`);
      }
    }
  }

  private rollback(cause: unknown): never {
    const failure = describe(cause);
    const rollbackFailures: string[] = [];
    const cleanupFailures: string[] = [];
    for (const target of [...this.targets].reverse()) {
      if (target.state === "published") {
        const problem = this.restore(target);
        if (problem === null) target.state = "rolled-back";
        else {
          target.state = "rollback-failed";
          rollbackFailures.push(`${target.relative}: ${problem}`);
        }
      } else {
        this.removeTemporary(target.candidate, cleanupFailures);
        if (target.state === "staged" || target.state === "staging") this.removeTemporary(target.backup, cleanupFailures);
        target.state = "untouched";
      }
    }
    this.syncDirectories(cleanupFailures);

    if (rollbackFailures.length > 0) {
      const recoveryPath = this.recordFinal("rollback-incomplete", failure, rollbackFailures);
      throw new OverlayTransactionError(
        "PROMOTION_APPLY_ROLLBACK_INCOMPLETE",
        `overlay apply failed (${failure}) and rollback was incomplete; recovery: ${recoveryPath ?? "unwritable"}`,
        { transactionState: "rollback-incomplete", recoveryPath, rollbackFailures },
        { cause },
      );
    }
    if (cleanupFailures.length === 0 && this.journalWritten) {
      const problem = this.removeJournal();
      if (problem !== null) cleanupFailures.push(problem);
    }
    if (cleanupFailures.length > 0) {
      const recoveryPath = this.recordFinal("rolled-back", failure, cleanupFailures);
      throw new OverlayTransactionError(
        "PROMOTION_APPLY_CLEANUP_INCOMPLETE",
        `overlay apply failed (${failure}); transaction is rolled-back but cleanup was incomplete; recovery: ${recoveryPath ?? "unwritable"}`,
        { transactionState: "rolled-back", recoveryPath, rollbackFailures: cleanupFailures },
        { cause },
      );
    }
    throw new OverlayTransactionError(
      "PROMOTION_APPLY_ROLLED_BACK",
      `overlay apply failed and was rolled back: ${failure}`,
      { transactionState: "rolled-back", recoveryPath: null, rollbackFailures: [] },
      { cause },
    );
  }

  private removeJournal(): string | null {
    try {
      try {
        this.fsOps.unlink(this.journalPath);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      this.fsOps.fsyncDirectory(nodePath.dirname(this.journalPath));
      this.journalWritten = false;
      return null;
    } catch (error) {
      return `could not remove the recovery journal: ${describe(error)}`;
    }
  }

  /** Puts the original inode back, unless the destination no longer holds exactly our candidate (a raced edit wins). */
  private restore(target: Target): string | null {
    try {
      const current = this.fsOps.lstat(target.destination);
      if (!sameFile(current, target.candidateIdentity as FileIdentity) || sha256Hex(this.fsOps.readFile(target.destination)) !== target.candidateSha) {
        return "destination changed after publish; left in place to preserve the concurrent edit";
      }
      const backup = this.fsOps.lstat(target.backup);
      if (!sameFile(backup, target.original as FileIdentity)) return "backup no longer holds the original file";
      this.fsOps.rename(target.backup, target.destination);
      this.fsOps.fsyncDirectory(target.directory);
      return null;
    } catch (error) {
      return describe(error);
    }
  }

  private cleanupAfterPublish(): void {
    const failures: string[] = [];
    for (const target of this.targets) this.removeTemporary(target.backup, failures);
    this.syncDirectories(failures);
    if (failures.length === 0) {
      const problem = this.removeJournal();
      if (problem === null) return;
      failures.push(problem);
    }
    const recoveryPath = this.recordFinal("published", "cleanup after publish failed", failures);
    throw new OverlayTransactionError(
      "PROMOTION_APPLY_CLEANUP_INCOMPLETE",
      `overlay was published; transaction is published but cleanup was incomplete; recovery: ${recoveryPath ?? "unwritable"}`,
      { transactionState: "published", recoveryPath, rollbackFailures: failures },
    );
  }
}
