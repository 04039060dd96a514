import { computeOracleDigests } from "./compute-oracle-digests.js";
import type { OracleBinding, OracleFileBinding } from "./compute-oracle-digests.js";
import { OracleError } from "./errors.js";
import { oracleCommandIdentity } from "./oracle-mode.js";
import type { OracleMode, OracleModeFields } from "./oracle-mode.js";
import { findOraclePathViolation } from "./schema.js";

/** A captured file handed to `createOracleSnapshot`. */
export interface OracleSnapshotFile {
  readonly target: string;
  readonly payload: Uint8Array;
}

/**
 * Immutable in-memory copy of one task's hidden oracle. Payloads live in a private field: they never show up in
 * JSON, inspection or logs, and `readFile` hands out copies, so no caller can change what gets staged.
 */
export class OracleSnapshot {
  readonly command: string;
  /** `in-process` (the command imports or runs the candidate beside the stage) or `black-box` (see oracle-mode.ts). */
  readonly mode: OracleMode;
  /** The black-box command that runs the candidate's code without the stage; null in-process. */
  readonly candidate: string | null;
  readonly binding: OracleBinding;
  readonly #payloads: ReadonlyMap<string, Buffer>;

  /**
   * Use `captureOracle` or `createOracleSnapshot`; this copies every payload it is given.
   * @throws {OracleError} ORACLE_SNAPSHOT_INVALID for a duplicate target or one the declaration rules refuse, and
   * for a `candidate` given without `mode: black-box` (or missing with it, or holding a NUL).
   */
  constructor(command: string, files: readonly OracleSnapshotFile[], modeFields: OracleModeFields = {}) {
    const mode = modeFields.mode ?? "in-process";
    const candidate = modeFields.candidate ?? null;
    if ((mode === "black-box") !== (candidate !== null) || (candidate ?? "").includes("\0"))
      throw new OracleError("ORACLE_SNAPSHOT_INVALID", "a candidate command is required with mode black-box, and only then");
    const payloads = new Map<string, Buffer>();
    for (const file of files) {
      // Staging joins targets under the stage directory, so a hand-built snapshot gets the declaration's path rules.
      const violation = findOraclePathViolation(file.target);
      if (violation)
        throw new OracleError("ORACLE_SNAPSHOT_INVALID", `target ${JSON.stringify(file.target.slice(0, 240))} ${violation.message}`);
      if (payloads.has(file.target)) throw new OracleError("ORACLE_SNAPSHOT_INVALID", `duplicate target ${file.target}`);
      payloads.set(file.target, Buffer.from(file.payload));
    }
    this.command = command;
    this.mode = mode;
    this.candidate = candidate;
    this.#payloads = payloads;
    const binding = computeOracleDigests(
      oracleCommandIdentity(command, mode, candidate),
      [...payloads].map(([target, payload]) => ({ target, payload })),
    );
    this.binding = Object.freeze({
      ...binding,
      oracle_files: Object.freeze(binding.oracle_files.map((file) => Object.freeze({ ...file }))),
    });
    Object.freeze(this);
  }

  /** Files sorted by target (the digest order), without payloads. */
  get files(): readonly OracleFileBinding[] {
    return this.binding.oracle_files;
  }

  /** A fresh copy of one payload; throws ORACLE_UNKNOWN_TARGET for a target the snapshot does not hold. */
  readFile(target: string): Buffer {
    const payload = this.#payloads.get(target);
    if (payload === undefined) throw new OracleError("ORACLE_UNKNOWN_TARGET", `snapshot has no target ${target}`);
    return Buffer.from(payload);
  }

  /** True when `bytes` equal the captured payload of `target` exactly. */
  matches(target: string, bytes: Uint8Array): boolean {
    const payload = this.#payloads.get(target);
    return payload !== undefined && payload.equals(bytes);
  }

  /** Serialises digests and the file list only; hidden bytes never reach JSON. */
  toJSON(): OracleBinding {
    return this.binding;
  }
}

/**
 * Builds a snapshot from bytes already in memory; trusts the bytes as captured and copies them, refuses (throws
 * ORACLE_SNAPSHOT_INVALID) a duplicate target or one that breaks the declaration's path rules.
 */
export function createOracleSnapshot(
  command: string,
  files: readonly OracleSnapshotFile[],
  modeFields: OracleModeFields = {},
): OracleSnapshot {
  return new OracleSnapshot(command, files, modeFields);
}
