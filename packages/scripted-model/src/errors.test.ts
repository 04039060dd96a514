import { describe, expect, it } from "vitest";
import { ScriptedModelError, isScriptedModelError } from "./errors.js";

describe("ScriptedModelError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new ScriptedModelError("SCRIPTED_MODEL_TEST", "what happened", { cause });
    expect(error.code).toBe("SCRIPTED_MODEL_TEST");
    expect(error.name).toBe("ScriptedModelError");
    expect(error.cause).toBe(cause);
    expect(isScriptedModelError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isScriptedModelError(foreign)).toBe(false);
    expect(isScriptedModelError("SCRIPTED_MODEL_TEST")).toBe(false);
  });
});
