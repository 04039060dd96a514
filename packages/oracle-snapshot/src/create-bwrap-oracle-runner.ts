import { SANDBOX_WORKSPACE, runSandboxed } from "@wfbench/sandbox-bwrap";
import type { BwrapRunOptions, Mount, SandboxPolicyInput, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { OracleError } from "./errors.js";
import type { OracleCommandRunner, OracleRunRequest, OracleRunnerReport } from "./oracle-command-runner.js";

/** How the cell's sandbox looks around an oracle run; everything here is the harness's own, trusted data. */
export interface BwrapOracleRunnerOptions {
  /** The sandbox environment allow-list (reference §6.3, never an API key); the oracle variables go on top. */
  readonly env: Readonly<Record<string, string>>;
  /** Read-only mounts of the cell (task dependencies, runtime); the stage is bound after them so none shadows it. */
  readonly mounts?: readonly Mount[];
  /** Empty tmpfs overlays, e.g. `<node_modules>/.vite-temp` so vitest can run over a read-only dependency. */
  readonly tmpfs?: readonly string[];
  readonly homeHostPath?: string;
  readonly tmpHostPath?: string;
  readonly graceMs?: number;
  /** Replaces `runSandboxed` (tests record what was asked); defaults to `@wfbench/sandbox-bwrap`'s. */
  readonly runSandboxed?: (
    policy: SandboxPolicyInput,
    argv: readonly string[],
    options: BwrapRunOptions,
  ) => Promise<SandboxRunResult>;
}

/**
 * The product runner for `runHiddenOracle`: runs the request through `@wfbench/sandbox-bwrap` with the workspace
 * read-only at /workspace, the stage read-only at /workspace/<name>, no network and the given env allow-list.
 * Trusts its options; refuses a request that is not read-only and network-less, and keeps none of the output (the
 * sandbox is told to buffer zero bytes of stdout and stderr).
 */
export function createBwrapOracleRunner(options: BwrapOracleRunnerOptions): OracleCommandRunner {
  const run = options.runSandboxed ?? runSandboxed;
  return {
    workspaceView: SANDBOX_WORKSPACE,
    async run(request: OracleRunRequest): Promise<OracleRunnerReport> {
      if (!request.workspace.readOnly || !request.mount.readOnly || request.network !== "none")
        throw new OracleError("ORACLE_RUN_REQUEST_INVALID", "an oracle run must be read-only and network-less");
      const policy: SandboxPolicyInput = {
        workspace: { hostPath: request.workspace.hostPath, mode: "ro" },
        homeHostPath: options.homeHostPath ?? null,
        tmpHostPath: options.tmpHostPath ?? null,
        mounts: [
          ...(options.mounts ?? []),
          { source: request.mount.source, target: `${SANDBOX_WORKSPACE}/${request.mount.name}`, mode: "ro" },
        ],
        tmpfs: [...(options.tmpfs ?? [])],
        env: { ...options.env, ...request.env },
        network: { mode: "none" },
        cwd: SANDBOX_WORKSPACE,
      };
      const result = await run(policy, request.argv, {
        timeoutMs: request.timeoutMs,
        ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
        ...(request.signal ? { signal: request.signal } : {}),
        maxStdoutBytes: 0,
        stderrTailBytes: 0,
      });
      return { state: result.state, exitCode: result.exitCode };
    },
  };
}
