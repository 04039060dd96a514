import { describe, expect, it } from "vitest";
import { ClaudeCliError, isClaudeCliError } from "./errors.js";

describe("ClaudeCliError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new ClaudeCliError("CLAUDE_CLI_VERSION_MISMATCH", "what happened", { cause });
    expect(error.code).toBe("CLAUDE_CLI_VERSION_MISMATCH");
    expect(error.name).toBe("ClaudeCliError");
    expect(error.cause).toBe(cause);
    expect(isClaudeCliError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    expect(isClaudeCliError(Object.assign(new Error("x"), { code: "SCRIPTED_MODEL_LISTEN_FAILED" }))).toBe(false);
    expect(isClaudeCliError("CLAUDE_CLI_VERSION_MISMATCH")).toBe(false);
  });
});
