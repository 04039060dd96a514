import { describe, expect, it } from "vitest";
import { TaskSuiteError, isTaskSuiteError } from "./errors.js";

describe("TaskSuiteError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new TaskSuiteError("TASK_SUITE_GIT_FAILED", "what happened", { cause });
    expect(error.code).toBe("TASK_SUITE_GIT_FAILED");
    expect(error.name).toBe("TaskSuiteError");
    expect(error.cause).toBe(cause);
    expect(isTaskSuiteError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isTaskSuiteError(Object.assign(new Error("x"), { code: "OTHER" }))).toBe(false);
    expect(isTaskSuiteError("TASK_SUITE_GIT_FAILED")).toBe(false);
  });
});
