/** Stable codes for sandbox-bwrap failures; callers branch on these, never on messages. */
export type SandboxErrorCode = `SANDBOX_${string}`;

/** Base error of sandbox-bwrap: thrown for environment failures and bugs, never for expected outcomes. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SandboxError";
    this.code = code;
  }
}

/** True for any SandboxError, also across module copies (checks the code prefix, not identity). */
export function isSandboxError(value: unknown): value is SandboxError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SANDBOX_");
}

/** Codes a failed preflight can carry; each names one host condition and its fix. */
export type PreflightFailureCode =
  | "SANDBOX_BWRAP_NOT_FOUND"
  | "SANDBOX_USERNS_DISABLED"
  | "SANDBOX_USERNS_APPARMOR"
  | "SANDBOX_USERNS_NESTING_LIMIT"
  | "SANDBOX_USERNS_UNSUPPORTED"
  | "SANDBOX_PROC_MASKED"
  | "SANDBOX_MOUNT_SOURCE_MISSING"
  | "SANDBOX_EXEC_FAILED"
  | "SANDBOX_PREFLIGHT_TIMEOUT"
  | "SANDBOX_PREFLIGHT_FAILED";

/** Thrown by preflight when bwrap cannot run the policy's argv on this host; `stderrTail` is bwrap's own words. */
export class SandboxPreflightError extends SandboxError {
  override readonly code: PreflightFailureCode;
  readonly stderrTail: string;
  constructor(code: PreflightFailureCode, message: string, stderrTail: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = "SandboxPreflightError";
    this.code = code;
    this.stderrTail = stderrTail;
  }
}

/** Thrown when a policy cannot be turned into a sandbox at all (invalid schema, bad mount source, bad argv, bad run options). */
export class SandboxPolicyError extends SandboxError {
  constructor(
    code: "SANDBOX_POLICY_INVALID" | "SANDBOX_MOUNT_SOURCE_INVALID" | "SANDBOX_ARGV_INVALID" | "SANDBOX_OPTIONS_INVALID",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "SandboxPolicyError";
  }
}

/** Thrown when no seccomp table exists for the running architecture: the sandbox fails closed instead of unfiltered. */
export class SeccompUnsupportedArchError extends SandboxError {
  readonly arch: string;
  constructor(arch: string) {
    super(
      "SANDBOX_SECCOMP_UNSUPPORTED_ARCH",
      `no seccomp syscall table for architecture "${arch}" (supported: x64, arm64); refusing to run unfiltered — run on x86_64 or aarch64`,
    );
    this.name = "SeccompUnsupportedArchError";
    this.arch = arch;
  }
}

/** Thrown when the host-unsafe backend is requested where it is forbidden (CI, apply mode, no acknowledgement). */
export class UnsafeBackendRefusedError extends SandboxError {
  constructor(message: string) {
    super("SANDBOX_UNSAFE_REFUSED", message);
    this.name = "UnsafeBackendRefusedError";
  }
}
