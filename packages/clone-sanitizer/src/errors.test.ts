import { describe, expect, it } from "vitest";
import { SanitizerError, isSanitizerError } from "./errors.js";

describe("SanitizerError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new SanitizerError("SANITIZER_TEST", "what happened", { cause });
    expect(error.code).toBe("SANITIZER_TEST");
    expect(error.name).toBe("SanitizerError");
    expect(error.cause).toBe(cause);
    expect(isSanitizerError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isSanitizerError(foreign)).toBe(false);
    expect(isSanitizerError("SANITIZER_TEST")).toBe(false);
  });
});
