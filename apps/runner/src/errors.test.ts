import { describe, expect, it } from "vitest";
import { RunnerError, isRunnerError } from "./errors.js";

describe("RunnerError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new RunnerError("RUNNER_TEST", "what happened", { cause });
    expect(error.code).toBe("RUNNER_TEST");
    expect(error.name).toBe("RunnerError");
    expect(error.cause).toBe(cause);
    expect(isRunnerError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isRunnerError(foreign)).toBe(false);
    expect(isRunnerError("RUNNER_TEST")).toBe(false);
  });
});
