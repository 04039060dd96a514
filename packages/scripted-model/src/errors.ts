/** Stable codes for scripted-model failures; callers branch on these, never on messages. */
export type ScriptedModelErrorCode = `SCRIPTED_MODEL_${string}`;

/** Base error of scripted-model: thrown for environment failures and bugs, never for expected outcomes. */
export class ScriptedModelError extends Error {
  readonly code: ScriptedModelErrorCode;
  constructor(code: ScriptedModelErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ScriptedModelError";
    this.code = code;
  }
}

/** True for any ScriptedModelError, also across module copies (checks the code prefix, not identity). */
export function isScriptedModelError(value: unknown): value is ScriptedModelError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SCRIPTED_MODEL_");
}

/** The server could not bind its address or socket path. */
export class ListenError extends ScriptedModelError {
  constructor(message: string, options?: ErrorOptions) {
    super("SCRIPTED_MODEL_LISTEN_FAILED", message, options);
    this.name = "ListenError";
  }
}

/** The request log could not be opened or written; the server refuses to run without its evidence. */
export class RequestLogWriteError extends ScriptedModelError {
  constructor(message: string, options?: ErrorOptions) {
    super("SCRIPTED_MODEL_REQUEST_LOG_WRITE_FAILED", message, options);
    this.name = "RequestLogWriteError";
  }
}

/** Why the pinned Claude Code CLI could not be used; each code's message names the fix. */
export type ClaudeCliErrorCode =
  | "SCRIPTED_MODEL_CLAUDE_CLI_UNSUPPORTED_PLATFORM"
  | "SCRIPTED_MODEL_CLAUDE_CLI_PACKAGE_MISSING"
  | "SCRIPTED_MODEL_CLAUDE_CLI_PLATFORM_PACKAGE_MISSING"
  | "SCRIPTED_MODEL_CLAUDE_CLI_BINARY_MISSING"
  | "SCRIPTED_MODEL_CLAUDE_CLI_NOT_EXECUTABLE"
  | "SCRIPTED_MODEL_CLAUDE_CLI_VERSION_FAILED"
  | "SCRIPTED_MODEL_CLAUDE_CLI_VERSION_MISMATCH";

/** The pinned Claude Code CLI is absent, unusable or the wrong version. */
export class ClaudeCliError extends ScriptedModelError {
  declare readonly code: ClaudeCliErrorCode;
  constructor(code: ClaudeCliErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = "ClaudeCliError";
  }
}
