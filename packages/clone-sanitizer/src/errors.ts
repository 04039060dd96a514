/** Stable codes for clone-sanitizer failures; callers branch on these, never on messages. */
export type SanitizerErrorCode = `SANITIZER_${string}`;

/** Base error of clone-sanitizer: thrown for environment failures and bugs, never for expected outcomes. */
export class SanitizerError extends Error {
  readonly code: SanitizerErrorCode;
  constructor(code: SanitizerErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SanitizerError";
    this.code = code;
  }
}

/** True for any SanitizerError, also across module copies (checks the code prefix, not identity). */
export function isSanitizerError(value: unknown): value is SanitizerError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SANITIZER_");
}

/** Codes of GitInvocationError: git did not run to its own exit, for a reason outside the repository. */
export type GitInvocationErrorCode =
  | "SANITIZER_GIT_SPAWN_FAILED"
  | "SANITIZER_GIT_TIMEOUT"
  | "SANITIZER_GIT_OUTPUT_LIMIT"
  | "SANITIZER_GIT_SANDBOX_FAILED"
  | "SANITIZER_GIT_PATH_NOT_GRANTED";

/**
 * Git could not be started, ran past its deadline, wrote more output than allowed, its sandbox failed to start or be
 * torn down, or it was asked to work in a directory the sandboxed runner does not grant.
 */
export class GitInvocationError extends SanitizerError {
  readonly argv: readonly string[];
  constructor(
    code: GitInvocationErrorCode,
    argv: readonly string[],
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "GitInvocationError";
    this.argv = argv;
  }
}

/** A git command the sanitizer depends on exited with a status it does not accept. */
export class GitCommandError extends SanitizerError {
  readonly argv: readonly string[];
  readonly exitCode: number;
  readonly stderrTail: string;
  constructor(argv: readonly string[], exitCode: number, stderr: string) {
    const tail = truncateForMessage(stderr.trim());
    super("SANITIZER_GIT_FAILED", `git ${summarizeArgv(argv)} exited ${exitCode}: ${tail || "(no stderr)"}`);
    this.name = "GitCommandError";
    this.argv = argv;
    this.exitCode = exitCode;
    this.stderrTail = tail;
  }
}

/** A post-sanitize check found something recoverable or unexpected; the template is refused. */
export class TemplateVerificationError extends SanitizerError {
  readonly check: string;
  constructor(check: string, message: string) {
    super("SANITIZER_VERIFY_FAILED", `sanitized template failed check "${check}": ${message}`);
    this.name = "TemplateVerificationError";
    this.check = check;
  }
}

/** A clone or cell copy shares object storage with another repository (alternates or hardlinks). */
export class NotSelfContainedError extends SanitizerError {
  constructor(message: string) {
    super("SANITIZER_NOT_SELF_CONTAINED", message);
    this.name = "NotSelfContainedError";
  }
}

/** The repository layout is unsafe to touch (a symlinked component, a directory where a file belongs, …). */
export class UnsafeLayoutError extends SanitizerError {
  readonly path: string;
  constructor(path: string, message: string) {
    super("SANITIZER_UNSAFE_LAYOUT", `${path}: ${message}`);
    this.name = "UnsafeLayoutError";
    this.path = path;
  }
}

/** Copying a template or an asset failed, timed out, or exceeded a limit. */
export class CopyFailedError extends SanitizerError {
  constructor(
    code: "SANITIZER_COPY_FAILED" | "SANITIZER_COPY_TIMEOUT" | "SANITIZER_COPY_CANCELLED" | "SANITIZER_COPY_LIMIT",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "CopyFailedError";
  }
}

/** A task asset changed while it was being captured, or broke a snapshot rule. */
export class AssetCaptureError extends SanitizerError {
  readonly path: string;
  constructor(
    code: "SANITIZER_ASSET_MUTATED" | "SANITIZER_ASSET_LIMIT",
    path: string,
    message: string,
  ) {
    super(code, `${path}: ${message}`);
    this.name = "AssetCaptureError";
    this.path = path;
  }
}

const MAX_MESSAGE_ECHO = 200;

function truncateForMessage(text: string): string {
  return text.length <= MAX_MESSAGE_ECHO ? text : `${text.slice(0, MAX_MESSAGE_ECHO)}…`;
}

function summarizeArgv(argv: readonly string[]): string {
  // The hardening `-c` prefix is identical on every call and would drown the subcommand.
  const firstReal = argv.findIndex((arg, i) => arg !== "-c" && argv[i - 1] !== "-c" && !arg.startsWith("--literal"));
  return truncateForMessage(argv.slice(Math.max(firstReal, 0)).join(" "));
}
