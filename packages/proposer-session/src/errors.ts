/** Stable codes for proposer-session failures; callers branch on these, never on messages. */
export type ProposerSessionErrorCode =
  /** The caller's input (paths, suite, out dir) is unusable; the message names the fix. */
  | "PROPOSER_BAD_INPUT"
  /** The evidence source fails a fail-closed check (transcript digest, mode, metadata) or cannot fit the bundle caps. */
  | "PROPOSER_EVIDENCE_INVALID"
  /** The upstream canary before the session was refused (key, model, endpoint); the message names the fix. */
  | "PROPOSER_UPSTREAM_REFUSED"
  /** The clone, sandbox, gateway or a file operation failed (an environment failure). */
  | "PROPOSER_ENVIRONMENT_FAILED";

/** Error of the proposer session: thrown for bad input and environment failures, never for a session's outcome. */
export class ProposerSessionError extends Error {
  readonly code: ProposerSessionErrorCode;
  constructor(code: ProposerSessionErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ProposerSessionError";
    this.code = code;
  }
}

/** True for any ProposerSessionError, also across module copies (checks the code prefix, not identity). */
export function isProposerSessionError(value: unknown): value is ProposerSessionError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("PROPOSER_");
}
