import { describe, expect, it } from "vitest";
import { ResultRowError, isResultRowError } from "./errors.js";

describe("ResultRowError", () => {
  it("carries its stable code, field, name and cause", () => {
    const cause = new Error("root cause");
    const error = new ResultRowError("RESULT_ROW_INVALID", "error_kind", "what happened", { cause });
    expect(error.code).toBe("RESULT_ROW_INVALID");
    expect(error.field).toBe("error_kind");
    expect(error.name).toBe("ResultRowError");
    expect(error.cause).toBe(cause);
    expect(isResultRowError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isResultRowError(Object.assign(new Error("x"), { code: "OTHER" }))).toBe(false);
    expect(isResultRowError("RESULT_ROW_INVALID")).toBe(false);
  });
});
