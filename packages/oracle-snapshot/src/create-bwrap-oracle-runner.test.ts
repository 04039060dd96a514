import type { BwrapRunOptions, SandboxPolicyInput, SandboxRunResult } from "@wfbench/sandbox-bwrap";
import { describe, expect, it } from "vitest";
import { createBwrapOracleRunner } from "./create-bwrap-oracle-runner.js";
import type { CandidateRunRequest, OracleRunRequest } from "./oracle-command-runner.js";

const SECRET = "HIDDEN-ORACLE-OUTPUT-c9e0";
const NAME = ".wfbench-oracle-0123456789abcdef0123456789abcdef";
const request: OracleRunRequest = {
  argv: ["/bin/sh", "-c", "run oracle"],
  workspace: { hostPath: "/srv/cell/clone", readOnly: true },
  mount: { source: `/srv/cell/private/${NAME}`, hostTarget: `/srv/cell/clone/${NAME}`, name: NAME, readOnly: true },
  network: "none",
  env: { WFBENCH_ORACLE_ROOT: `/workspace/${NAME}`, GITNEXUS_BENCH_ORACLE_ROOT: `/workspace/${NAME}`, PATH: "/evil" },
  timeoutMs: 1234,
  output: "discard",
};

// Records what the adapter asks of sandbox-bwrap and answers like a run that printed the hidden tests.
function recorder(result: Partial<SandboxRunResult> = {}) {
  const calls: { policy: SandboxPolicyInput; argv: readonly string[]; options: BwrapRunOptions }[] = [];
  const run = async (policy: SandboxPolicyInput, argv: readonly string[], options: BwrapRunOptions) => {
    calls.push({ policy, argv, options });
    return {
      backend: "bwrap",
      state: "exited",
      ok: false,
      exitCode: 1,
      signal: null,
      stdout: Buffer.from(SECRET),
      stdoutOverflow: false,
      stderrTail: SECRET,
      durationMs: 5,
      setupError: SECRET,
      ...result,
    } satisfies SandboxRunResult;
  };
  return { calls, run };
}

describe("createBwrapOracleRunner", () => {
  it("asks for a read-only workspace, the stage read-only at /workspace/<name> after every other mount, no network", async () => {
    const { calls, run } = recorder();
    const dependency = { source: "/srv/deps/node_modules", target: "/workspace/node_modules", mode: "ro" as const };
    const runner = createBwrapOracleRunner({
      env: { PATH: "/usr/bin:/bin", HOME: "/home/agent", WFBENCH_ORACLE_ROOT: "/stale" },
      mounts: [dependency],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
      homeHostPath: "/srv/cell/home",
      tmpHostPath: "/srv/cell/tmp",
      graceMs: 700,
      runSandboxed: run,
    });
    expect(runner.workspaceView).toBe("/workspace");
    const controller = new AbortController();
    const report = await runner.run({ ...request, signal: controller.signal });
    expect(report).toEqual({ state: "exited", exitCode: 1 });
    expect(JSON.stringify(report)).not.toContain(SECRET);
    const [call] = calls;
    expect(call?.argv).toEqual(["/bin/sh", "-c", "run oracle"]);
    expect(call?.policy).toEqual({
      workspace: { hostPath: "/srv/cell/clone", mode: "ro" },
      homeHostPath: "/srv/cell/home",
      tmpHostPath: "/srv/cell/tmp",
      mounts: [dependency, { source: `/srv/cell/private/${NAME}`, target: `/workspace/${NAME}`, mode: "ro" }],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
      // The request's oracle variables win over the allow-list; everything else is the allow-list.
      env: {
        PATH: "/evil",
        HOME: "/home/agent",
        WFBENCH_ORACLE_ROOT: `/workspace/${NAME}`,
        GITNEXUS_BENCH_ORACLE_ROOT: `/workspace/${NAME}`,
      },
      network: { mode: "none" },
      cwd: "/workspace",
    });
    // Output is discarded at the source: nothing of it is even buffered.
    expect(call?.options).toEqual({
      timeoutMs: 1234,
      graceMs: 700,
      signal: controller.signal,
      maxStdoutBytes: 0,
      stderrTailBytes: 0,
    });
  });

  it("defaults to fresh tmpfs home/tmp, no extra mounts, and the sandbox's own grace", async () => {
    const { calls, run } = recorder({ state: "timeout", exitCode: null });
    const report = await createBwrapOracleRunner({ env: {}, runSandboxed: run }).run(request);
    expect(report).toEqual({ state: "timeout", exitCode: null });
    expect(calls[0]?.policy).toMatchObject({ homeHostPath: null, tmpHostPath: null, tmpfs: [] });
    expect(calls[0]?.policy.mounts).toHaveLength(1);
    expect(calls[0]?.options).toEqual({ timeoutMs: 1234, maxStdoutBytes: 0, stderrTailBytes: 0 });
  });

  it("runs a black-box candidate with the workspace read-only, no stage, stdout bounded and stderr dropped", async () => {
    const { calls, run } = recorder({ exitCode: 0, stdout: Buffer.from("report\n"), stdoutOverflow: true });
    const dependency = { source: "/srv/deps/node_modules", target: "/workspace/node_modules", mode: "ro" as const };
    const runner = createBwrapOracleRunner({
      env: { PATH: "/usr/bin:/bin" },
      mounts: [dependency],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
      // The oracle's own home and /tmp: never the candidate's, which could leave files there for the oracle.
      homeHostPath: "/srv/cell/home",
      tmpHostPath: "/srv/cell/tmp",
      runSandboxed: run,
    });
    const candidate: CandidateRunRequest = {
      argv: ["/bin/sh", "-c", "node probe.mjs"],
      workspace: { hostPath: "/srv/cell/clone", readOnly: true },
      network: "none",
      env: { X: "1" },
      timeoutMs: 999,
      maxStdoutBytes: 4096,
    };
    const report = await runner.runCandidate?.(candidate);
    expect(report).toEqual({ state: "exited", exitCode: 0, stdout: Buffer.from("report\n"), stdoutOverflow: true });
    expect(calls[0]?.policy).toEqual({
      workspace: { hostPath: "/srv/cell/clone", mode: "ro" },
      homeHostPath: null,
      tmpHostPath: null,
      mounts: [dependency],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
      env: { PATH: "/usr/bin:/bin", X: "1" },
      network: { mode: "none" },
      cwd: "/workspace",
    });
    expect(calls[0]?.options).toEqual({ timeoutMs: 999, maxStdoutBytes: 4096, stderrTailBytes: 0 });
    await expect(runner.runCandidate?.({ ...candidate, network: "host" } as unknown as CandidateRunRequest)).rejects.toThrow(/network-less/);
    expect(calls).toHaveLength(1);
  });

  it("shows a black-box oracle the harness view at /oracle and the stage inside it, with no workspace at all", async () => {
    const { calls, run } = recorder();
    const dependency = { source: "/srv/deps/node_modules", target: "/workspace/node_modules", mode: "ro" as const };
    const runner = createBwrapOracleRunner({ env: {}, mounts: [dependency], runSandboxed: run });
    expect(runner.outputView).toBe("/oracle");
    const view = `/srv/cell/private/.wfbench-candidate-${"a".repeat(32)}`;
    await runner.run({ ...request, view: "candidate-output", workspace: { hostPath: view, readOnly: true }, mount: { ...request.mount, hostTarget: `${view}/${NAME}` } });
    expect(calls[0]?.policy).toMatchObject({
      workspace: null,
      mounts: [dependency, { source: view, target: "/oracle", mode: "ro" }, { source: `/srv/cell/private/${NAME}`, target: `/oracle/${NAME}`, mode: "ro" }],
      cwd: "/oracle",
    });
    expect(calls[0]?.options).toMatchObject({ maxStdoutBytes: 0, stderrTailBytes: 0 });
  });

  it("refuses a request that is not read-only and network-less instead of weakening it", async () => {
    const { calls, run } = recorder();
    const runner = createBwrapOracleRunner({ env: {}, runSandboxed: run });
    const writable = { ...request, workspace: { hostPath: "/srv/cell/clone", readOnly: false } } as unknown as OracleRunRequest;
    await expect(runner.run(writable)).rejects.toThrow(/read-only/);
    expect(calls).toEqual([]);
  });
});
