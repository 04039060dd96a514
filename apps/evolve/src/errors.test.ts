import { describe, expect, it } from "vitest";
import { EvolveError, isEvolveError } from "./errors.js";

describe("EvolveError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new EvolveError("EVOLVE_TEST", "what happened", { cause });
    expect(error.code).toBe("EVOLVE_TEST");
    expect(error.name).toBe("EvolveError");
    expect(error.cause).toBe(cause);
    expect(isEvolveError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isEvolveError(foreign)).toBe(false);
    expect(isEvolveError("EVOLVE_TEST")).toBe(false);
  });
});
