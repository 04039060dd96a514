/**
 * What this package asks a sandbox to do for one hidden-oracle run. The runner must: mount `workspace.hostPath`
 * read-only, bind `mount.source` read-only at `mount.hostTarget` (seen inside as `<workspaceView>/<mount.name>`),
 * deny all network, set exactly `env` on top of its own allow-list, run `argv` with the timeout, and discard stdout
 * and stderr.
 */
export interface OracleRunRequest {
  readonly argv: readonly ["/bin/sh", "-c", string];
  readonly workspace: { readonly hostPath: string; readonly readOnly: true };
  readonly mount: {
    readonly source: string;
    readonly hostTarget: string;
    readonly name: string;
    readonly readOnly: true;
  };
  readonly network: "none";
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly output: "discard";
  readonly signal?: AbortSignal;
  /**
   * What `workspace.hostPath` holds. Absent or `candidate-workspace`: the candidate's workspace (in-process mode).
   * `candidate-output`: the harness-owned view of a black-box run (the captured output and the mountpoint); the
   * command must then see it at `outputView` instead of a workspace, and no candidate workspace at all.
   */
  readonly view?: "candidate-workspace" | "candidate-output";
}

/**
 * What this package asks a sandbox to do for the candidate half of a black-box oracle: mount `workspace.hostPath`
 * read-only at `workspaceView`, mount nothing of the hidden oracle, deny all network, set exactly `env` on top of
 * its own allow-list, run `argv` with the timeout, and capture at most `maxStdoutBytes` of stdout (stderr dropped).
 */
export interface CandidateRunRequest {
  readonly argv: readonly ["/bin/sh", "-c", string];
  readonly workspace: { readonly hostPath: string; readonly readOnly: true };
  readonly network: "none";
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxStdoutBytes: number;
  readonly signal?: AbortSignal;
}

/** What a candidate run reports: a terminal state, the exit code and the bounded stdout (untrusted bytes). */
export interface CandidateRunnerReport {
  readonly state: string;
  readonly exitCode: number | null;
  readonly stdout: Uint8Array;
  /** True when the candidate wrote more than `maxStdoutBytes`. */
  readonly stdoutOverflow: boolean;
}

/**
 * What a runner reports back: a terminal state (`exited` for a plain exit; anything else is an infrastructure
 * state) and the exit code. Any other field a runner returns is stripped before it can reach a verdict.
 */
export interface OracleRunnerReport {
  readonly state: string;
  readonly exitCode: number | null;
}

/**
 * Runs the oracle command (and, for a black-box oracle, the candidate command first) in a sandbox. `workspaceView`
 * is the path at which the command sees the workspace (`/workspace` in bwrap); null means it sees host paths.
 */
export interface OracleCommandRunner {
  readonly workspaceView: string | null;
  /** Where a black-box oracle command sees its harness-owned view (`/oracle` in bwrap); null = host paths. */
  readonly outputView?: string | null;
  run(request: OracleRunRequest): Promise<OracleRunnerReport>;
  /** Runs a black-box oracle's candidate command; a runner without it cannot judge a black-box oracle. */
  runCandidate?(request: CandidateRunRequest): Promise<CandidateRunnerReport>;
}
