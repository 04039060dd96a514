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
