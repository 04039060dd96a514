import { describe, expect, it } from "vitest";
import { SandboxError, isSandboxError } from "./errors.js";

describe("SandboxError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new SandboxError("SANDBOX_TEST", "what happened", { cause });
    expect(error.code).toBe("SANDBOX_TEST");
    expect(error.name).toBe("SandboxError");
    expect(error.cause).toBe(cause);
    expect(isSandboxError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isSandboxError(foreign)).toBe(false);
    expect(isSandboxError("SANDBOX_TEST")).toBe(false);
  });
});
