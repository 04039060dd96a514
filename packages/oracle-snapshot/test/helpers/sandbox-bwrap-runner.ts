import { SANDBOX_WORKSPACE, runSandboxed } from "@wfbench/sandbox-bwrap";
import type { SandboxPolicyInput, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import type { OracleCommandRunner, OracleRunRequest, OracleRunnerReport } from "../../src/index.js";

/**
 * Adapter from this package's runner interface to `@wfbench/sandbox-bwrap`'s `runSandboxed`: workspace read-only
 * at /workspace, the stage read-only at /workspace/<name>, no network, a plain env allow-list. It keeps the raw
 * results only so tests can prove the output existed and was dropped; a product adapter would not keep them.
 */
export function createSandboxBwrapOracleRunner(): OracleCommandRunner & { readonly raw: SandboxRunResult[] } {
  const raw: SandboxRunResult[] = [];
  return {
    raw,
    workspaceView: SANDBOX_WORKSPACE,
    async run(request: OracleRunRequest): Promise<OracleRunnerReport> {
      const policy: SandboxPolicyInput = {
        workspace: { hostPath: request.workspace.hostPath, mode: "ro" },
        mounts: [{ source: request.mount.source, target: `${SANDBOX_WORKSPACE}/${request.mount.name}`, mode: "ro" }],
        env: {
          PATH: "/usr/local/bin:/usr/bin:/bin",
          HOME: "/home/agent",
          TMPDIR: "/tmp",
          LANG: "C.UTF-8",
          NO_COLOR: "1",
          ...request.env,
        },
        network: { mode: "none" },
        cwd: SANDBOX_WORKSPACE,
      };
      const result = await runSandboxed(policy, request.argv, {
        timeoutMs: request.timeoutMs,
        graceMs: 500,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      raw.push(result);
      return { state: result.state, exitCode: result.exitCode };
    },
  };
}
