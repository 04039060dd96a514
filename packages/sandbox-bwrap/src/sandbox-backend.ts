import type { RunOptions, SandboxRunResult } from "./run-result.js";
import { DEFAULT_BWRAP_PATH, runSandboxed, type HostIdentity } from "./run-sandboxed.js";
import type { SandboxPolicy, SandboxPolicyInput } from "./schema.js";

/** The bwrap backend: the real boundary. Same `run` shape as the host-unsafe backend so callers can swap them. */
export interface BwrapBackend {
  readonly kind: "bwrap";
  readonly isSecurityBoundary: true;
  run(policy: SandboxPolicyInput | SandboxPolicy, argv: readonly string[], options: RunOptions): Promise<SandboxRunResult>;
}

/**
 * Creates the bwrap backend bound to one bwrap binary (and, for a root caller, the unprivileged host identity every run
 * uses); trusts that binary, nothing the command does.
 */
export function createBwrapBackend(options: { bwrapPath?: string; arch?: string; hostIdentity?: HostIdentity } = {}): BwrapBackend {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  return {
    kind: "bwrap",
    isSecurityBoundary: true,
    run: (policy, argv, runOptions) =>
      runSandboxed(policy, argv, {
        ...runOptions,
        bwrapPath,
        ...(options.arch === undefined ? {} : { arch: options.arch }),
        ...(options.hostIdentity === undefined ? {} : { hostIdentity: options.hostIdentity }),
      }),
  };
}
