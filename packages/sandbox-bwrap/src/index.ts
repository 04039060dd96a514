export { SandboxPolicyError, isSandboxError } from "./errors.js";
export { SANDBOX_GATEWAY_SOCKET, SANDBOX_HOME, SANDBOX_TMP, SANDBOX_WORKSPACE } from "./schema.js";
export type { Mount, SandboxPolicyInput } from "./schema.js";
export type { SandboxRunResult } from "./run-result.js";
export { runSandboxed } from "./run-sandboxed.js";
export type { BwrapRunOptions, HostIdentity } from "./run-sandboxed.js";
export { preflight } from "./preflight.js";
export { describeSandboxPolicy } from "./describe-sandbox-policy.js";
export type { SandboxPolicyDescription } from "./describe-sandbox-policy.js";
