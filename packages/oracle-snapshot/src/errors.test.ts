import { describe, expect, it } from "vitest";
import {
  OracleCleanupError,
  OracleError,
  OracleMountpointChangedError,
  OracleReadError,
  OracleRunInfrastructureError,
  OracleStageCollisionError,
  OracleStageInputError,
  OracleStageTamperedError,
  OracleStageWriteError,
  isOracleError,
} from "./errors.js";

describe("OracleError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new OracleError("ORACLE_TEST", "what happened", { cause });
    expect(error.code).toBe("ORACLE_TEST");
    expect(error.name).toBe("OracleError");
    expect(error.cause).toBe(cause);
    expect(isOracleError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isOracleError(foreign)).toBe(false);
    expect(isOracleError("ORACLE_TEST")).toBe(false);
  });
});

describe("OracleError subclasses", () => {
  it.each([
    [new OracleReadError("m"), "ORACLE_READ_FAILED", "OracleReadError"],
    [new OracleStageInputError("m"), "ORACLE_STAGE_INPUT_INVALID", "OracleStageInputError"],
    [new OracleStageCollisionError("m"), "ORACLE_STAGE_COLLISION", "OracleStageCollisionError"],
    [new OracleStageWriteError("m"), "ORACLE_STAGE_WRITE_FAILED", "OracleStageWriteError"],
    [new OracleStageTamperedError("m"), "ORACLE_STAGE_TAMPERED", "OracleStageTamperedError"],
    [new OracleMountpointChangedError("m"), "ORACLE_MOUNTPOINT_CHANGED", "OracleMountpointChangedError"],
    [new OracleCleanupError("m"), "ORACLE_CLEANUP_FAILED", "OracleCleanupError"],
    [new OracleRunInfrastructureError("timeout"), "ORACLE_RUN_INFRASTRUCTURE", "OracleRunInfrastructureError"],
  ])("%s carries a stable code and name", (error, code, name) => {
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(OracleError);
    expect(isOracleError(error)).toBe(true);
  });

  it("names only the terminal state in an infrastructure error", () => {
    const error = new OracleRunInfrastructureError("forced-kill");
    expect(error.state).toBe("forced-kill");
    expect(error.message).toBe("hidden oracle did not exit normally (state forced-kill); output discarded");
  });
});
