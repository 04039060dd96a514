import { runSandboxed } from "@wfbench/sandbox-bwrap";
import type { BwrapRunOptions, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { createBwrapOracleRunner } from "../../src/create-bwrap-oracle-runner.js";
import type { OracleCommandRunner } from "../../src/oracle-command-runner.js";

/**
 * The product adapter (`createBwrapOracleRunner`) over the real `runSandboxed`, with a recorder in between. The
 * recorder re-enables output capture and keeps the raw results only so tests can prove the output existed and was
 * dropped; it also keeps the options the adapter asked for, to show the product asks for none of the output.
 */
export function createSandboxBwrapOracleRunner(): OracleCommandRunner & {
  readonly raw: SandboxRunResult[];
  readonly asked: BwrapRunOptions[];
} {
  const raw: SandboxRunResult[] = [];
  const asked: BwrapRunOptions[] = [];
  const runner = createBwrapOracleRunner({
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/home/agent", TMPDIR: "/tmp", LANG: "C.UTF-8", NO_COLOR: "1" },
    graceMs: 500,
    runSandboxed: async (policy, argv, options) => {
      asked.push(options);
      const result = await runSandboxed(policy, argv, { ...options, maxStdoutBytes: 1 << 20, stderrTailBytes: 1 << 16 });
      raw.push(result);
      return result;
    },
  });
  return { workspaceView: runner.workspaceView, run: (request) => runner.run(request), raw, asked };
}
