/** Why the pinned Claude Code CLI could not be found, proven or staged; each code's message names the fix. */
export type ClaudeCliErrorCode =
  | "CLAUDE_CLI_UNSUPPORTED_PLATFORM"
  | "CLAUDE_CLI_PACKAGE_MISSING"
  | "CLAUDE_CLI_PLATFORM_PACKAGE_MISSING"
  | "CLAUDE_CLI_BINARY_MISSING"
  | "CLAUDE_CLI_NOT_EXECUTABLE"
  | "CLAUDE_CLI_NOT_NATIVE"
  | "CLAUDE_CLI_VERSION_FAILED"
  | "CLAUDE_CLI_VERSION_MISMATCH"
  | "CLAUDE_CLI_NOT_EXEC_ONLY"
  | "CLAUDE_CLI_SETTINGS_INVALID";

/** Error of claude-cli: the pinned CLI is absent, unusable, the wrong version, or not staged execute-only. */
export class ClaudeCliError extends Error {
  readonly code: ClaudeCliErrorCode;
  constructor(code: ClaudeCliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ClaudeCliError";
    this.code = code;
  }
}

/** True for any ClaudeCliError, also across module copies (checks the code prefix, not identity). */
export function isClaudeCliError(value: unknown): value is ClaudeCliError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("CLAUDE_CLI_");
}
