/** Stable codes for oracle-snapshot failures; callers branch on these, never on messages. */
export type OracleErrorCode = `ORACLE_${string}`;

/** Base error of oracle-snapshot: thrown for environment failures and bugs, never for expected outcomes. */
export class OracleError extends Error {
  readonly code: OracleErrorCode;
  constructor(code: OracleErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "OracleError";
    this.code = code;
  }
}

/** True for any OracleError, also across module copies (checks the code prefix, not identity). */
export function isOracleError(value: unknown): value is OracleError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("ORACLE_");
}

/** The oracles root or a source could not be read for a reason other than the declaration (EACCES, EIO…). */
export class OracleReadError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_READ_FAILED", message, options);
    this.name = "OracleReadError";
  }
}

/** The workspace or private root handed to staging is not a real, private, absolute directory. */
export class OracleStageInputError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_STAGE_INPUT_INVALID", message, options);
    this.name = "OracleStageInputError";
  }
}

/** The mountpoint or stage name was already taken (planted file, symlink, directory): nothing ran. */
export class OracleStageCollisionError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_STAGE_COLLISION", message, options);
    this.name = "OracleStageCollisionError";
  }
}

/** Writing the stage failed (disk full, fsync error…): nothing ran. */
export class OracleStageWriteError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_STAGE_WRITE_FAILED", message, options);
    this.name = "OracleStageWriteError";
  }
}

/** Staged bytes, modes or entries differ from the snapshot after the oracle ran: the verdict is void. */
export class OracleStageTamperedError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_STAGE_TAMPERED", message, options);
    this.name = "OracleStageTamperedError";
  }
}

/** The workspace mountpoint is no longer the empty directory that was created: the verdict is void. */
export class OracleMountpointChangedError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_MOUNTPOINT_CHANGED", message, options);
    this.name = "OracleMountpointChangedError";
  }
}

/** Removing the stage or the mountpoint failed. */
export class OracleCleanupError extends OracleError {
  constructor(message: string, options?: ErrorOptions) {
    super("ORACLE_CLEANUP_FAILED", message, options);
    this.name = "OracleCleanupError";
  }
}

/**
 * The oracle command did not reach a plain exit (timeout, forced kill, sandbox failure…). The message names only
 * the terminal state; the command's output is never attached.
 */
export class OracleRunInfrastructureError extends OracleError {
  readonly state: string;
  constructor(state: string, options?: ErrorOptions) {
    super("ORACLE_RUN_INFRASTRUCTURE", `hidden oracle did not exit normally (state ${state}); output discarded`, options);
    this.name = "OracleRunInfrastructureError";
    this.state = state;
  }
}
