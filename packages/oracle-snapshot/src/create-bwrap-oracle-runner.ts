import { SANDBOX_WORKSPACE, runSandboxed } from "@wfbench/sandbox-bwrap";
import type { BwrapRunOptions, Mount, SandboxPolicyInput, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { OracleError } from "./errors.js";
import { SANDBOX_ORACLE_VIEW } from "./limits.js";
import type {
  CandidateRunRequest,
  CandidateRunnerReport,
  OracleCommandRunner,
  OracleRunRequest,
  OracleRunnerReport,
} from "./oracle-command-runner.js";

/** How the cell's sandbox looks around an oracle run; everything here is the harness's own, trusted data. */
export interface BwrapOracleRunnerOptions {
  /** The sandbox environment allow-list (reference §6.3, never an API key); the oracle variables go on top. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Read-only mounts of the cell (task dependencies, runtime), in every run: the candidate's and both oracle kinds'
   * (a black-box oracle's mount under /workspace lands in an otherwise empty /workspace). The stage is bound after
   * them so none shadows it.
   */
  readonly mounts?: readonly Mount[];
  /** Empty tmpfs overlays, e.g. `<node_modules>/.vite-temp` so vitest can run over a read-only dependency. */
  readonly tmpfs?: readonly string[];
  /** Host dirs backing home and /tmp of oracle runs; a black-box candidate run always gets fresh tmpfs instead. */
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
 * read-only at /workspace, the stage read-only at /workspace/<name>, no network and the given env allow-list. For a
 * black-box oracle it also runs the candidate command (workspace read-only, no stage, stdout bounded, stderr
 * dropped), and then the oracle command with NO workspace: only the harness-owned view at /oracle and the stage at
 * /oracle/<name>, so the oracle process cannot import the candidate's code. Trusts its options; refuses a request
 * that is not read-only and network-less, and keeps none of the oracle command's output (the sandbox is told to
 * buffer zero bytes of its stdout and stderr).
 */
export function createBwrapOracleRunner(options: BwrapOracleRunnerOptions): OracleCommandRunner {
  const run = options.runSandboxed ?? runSandboxed;
  const shared = {
    homeHostPath: options.homeHostPath ?? null,
    tmpHostPath: options.tmpHostPath ?? null,
    network: { mode: "none" as const },
  };
  return {
    workspaceView: SANDBOX_WORKSPACE,
    outputView: SANDBOX_ORACLE_VIEW,
    async runCandidate(request: CandidateRunRequest): Promise<CandidateRunnerReport> {
      if (!request.workspace.readOnly || request.network !== "none")
        throw new OracleError("ORACLE_RUN_REQUEST_INVALID", "a candidate run must be read-only and network-less");
      const policy: SandboxPolicyInput = {
        ...shared,
        // Always fresh tmpfs: a host-backed home or /tmp would let the candidate's code leave files (tool configs,
        // hooks) for the oracle run that follows it.
        homeHostPath: null,
        tmpHostPath: null,
        workspace: { hostPath: request.workspace.hostPath, mode: "ro" },
        mounts: [...(options.mounts ?? [])],
        tmpfs: [...(options.tmpfs ?? [])],
        env: { ...options.env, ...request.env },
        cwd: SANDBOX_WORKSPACE,
      };
      const result = await run(policy, request.argv, {
        timeoutMs: request.timeoutMs,
        ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
        ...(request.signal ? { signal: request.signal } : {}),
        maxStdoutBytes: request.maxStdoutBytes,
        stderrTailBytes: 0,
      });
      return { state: result.state, exitCode: result.exitCode, stdout: result.stdout, stdoutOverflow: result.stdoutOverflow };
    },
    async run(request: OracleRunRequest): Promise<OracleRunnerReport> {
      if (!request.workspace.readOnly || !request.mount.readOnly || request.network !== "none")
        throw new OracleError("ORACLE_RUN_REQUEST_INVALID", "an oracle run must be read-only and network-less");
      // A black-box oracle sees the harness-owned view where other oracles see the candidate's workspace.
      const blackBox = request.view === "candidate-output";
      const root = blackBox ? SANDBOX_ORACLE_VIEW : SANDBOX_WORKSPACE;
      const policy: SandboxPolicyInput = {
        ...shared,
        workspace: blackBox ? null : { hostPath: request.workspace.hostPath, mode: "ro" },
        mounts: [
          ...(options.mounts ?? []),
          ...(blackBox ? [{ source: request.workspace.hostPath, target: SANDBOX_ORACLE_VIEW, mode: "ro" as const }] : []),
          { source: request.mount.source, target: `${root}/${request.mount.name}`, mode: "ro" },
        ],
        tmpfs: [...(options.tmpfs ?? [])],
        env: { ...options.env, ...request.env },
        cwd: root,
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
