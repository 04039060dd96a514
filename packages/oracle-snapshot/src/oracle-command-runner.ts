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
 * Runs the oracle command in a sandbox. `workspaceView` is the path at which the command sees the workspace
 * (`/workspace` in bwrap); null means the command sees host paths.
 */
export interface OracleCommandRunner {
  readonly workspaceView: string | null;
  run(request: OracleRunRequest): Promise<OracleRunnerReport>;
}
