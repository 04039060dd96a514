import { describe, expect, it } from "vitest";
import { CellPipelineError, isCellPipelineError } from "./errors.js";

describe("CellPipelineError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new CellPipelineError("CELL_PIPELINE_SKILL_INVALID", "what happened", { cause });
    expect(error.code).toBe("CELL_PIPELINE_SKILL_INVALID");
    expect(error.name).toBe("CellPipelineError");
    expect(error.cause).toBe(cause);
    expect(isCellPipelineError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isCellPipelineError(Object.assign(new Error("x"), { code: "OTHER" }))).toBe(false);
  });
});
