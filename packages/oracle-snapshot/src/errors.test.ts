import { describe, expect, it } from "vitest";
import { OracleError, isOracleError } from "./errors.js";

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
