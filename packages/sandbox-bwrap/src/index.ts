export { SandboxError, SandboxPolicyError, SandboxPreflightError, SeccompUnsupportedArchError, UnsafeBackendRefusedError, isSandboxError } from "./errors.js";
export type { PreflightFailureCode, SandboxErrorCode } from "./errors.js";
export {
  AbsolutePathSchema,
  EnvNameSchema,
  MountSchema,
  NetworkSchema,
  RunBoundsSchema,
  SANDBOX_GATEWAY_SOCKET,
  SANDBOX_HOME,
  SANDBOX_TMP,
  SANDBOX_UID,
  SANDBOX_WORKSPACE,
  SandboxPolicySchema,
  WorkspaceSubpathSchema,
} from "./schema.js";
export type { Mount, Network, SandboxPolicy, SandboxPolicyInput } from "./schema.js";
export {
  BWRAP_FDS,
  MERGED_USR_LAYOUT,
  buildBwrapArgv,
  buildBwrapCommandLine,
  encodeArgsFile,
  parseSandboxPolicy,
  resolveSandboxCwd,
  writableAncestors,
} from "./build-argv.js";
export type { HostLayout } from "./build-argv.js";
export { checkMountSources, detectHostLayout } from "./check-mount-sources.js";
export type { Result } from "./check-mount-sources.js";
export { DENIED_CLONE_NAMESPACE_FLAGS, DENIED_IOCTLS, compileSeccompFilter, compileSeccompForTable } from "./compile-seccomp.js";
export { DENIED_SYSCALLS, SYSCALL_TABLES } from "./syscall-tables.js";
export type { FilteredSyscall, SyscallTable } from "./syscall-tables.js";
export { DEFAULT_GRACE_MS, DEFAULT_MAX_STDOUT_BYTES, DEFAULT_STDERR_TAIL_BYTES } from "./run-result.js";
export type { RunOptions, SandboxBackendKind, SandboxRunResult, SandboxRunState } from "./run-result.js";
export { DEFAULT_BWRAP_PATH, runSandboxed } from "./run-sandboxed.js";
export type { BwrapRunOptions } from "./run-sandboxed.js";
export { classifyBwrapFailure, preflight } from "./preflight.js";
export type { BwrapFailureClass, PreflightOptions, PreflightReport } from "./preflight.js";
export { UNSAFE_NO_BWRAP, createHostUnsafeBackend } from "./host-unsafe-backend.js";
export type { HostUnsafeBackend, HostUnsafeBackendOptions } from "./host-unsafe-backend.js";
export { buildHostPathMap, rewriteSandboxText, toHostPath } from "./host-paths.js";
export type { HostPathMap } from "./host-paths.js";
export { lockTreeReadOnly } from "./tree-modes.js";
export { createBwrapBackend } from "./sandbox-backend.js";
export type { BwrapBackend } from "./sandbox-backend.js";
