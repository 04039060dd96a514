import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOracleError } from "./errors.js";
import { MAX_CANDIDATE_STDOUT_BYTES } from "./limits.js";
import type { CandidateRunRequest, CandidateRunnerReport, OracleCommandRunner, OracleRunRequest, OracleRunnerReport } from "./oracle-command-runner.js";
import { createOracleSnapshot } from "./oracle-snapshot.js";
import { runHiddenOracle } from "./run-hidden-oracle.js";

let base: string;
let workspace: string;
let privateRoot: string;
const snapshot = createOracleSnapshot("compare the report", [{ target: "expected.json", payload: Buffer.from("[42]\n") }], {
  mode: "black-box",
  candidate: "node probe.mjs",
});

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-black-box-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

interface Seen {
  candidate: CandidateRunRequest[];
  oracle: OracleRunRequest[];
  /** What the private root and the workspace held while the candidate ran. */
  duringCandidate: { privateRoot: string[]; workspace: string[] }[];
  /** The captured output as the oracle run found it on disk. */
  output: { stdout: string; status: unknown; mode: number }[];
}

function fakeRunner(
  candidate: () => Promise<unknown>,
  oracle: (request: OracleRunRequest) => Promise<OracleRunnerReport> = async () => ({ state: "exited", exitCode: 0 }),
  outputView: string | null = "/oracle",
): OracleCommandRunner & { seen: Seen } {
  const seen: Seen = { candidate: [], oracle: [], duringCandidate: [], output: [] };
  return {
    seen,
    workspaceView: "/workspace",
    outputView,
    async runCandidate(request) {
      seen.candidate.push(request);
      seen.duringCandidate.push({ privateRoot: await readdir(privateRoot), workspace: await readdir(workspace) });
      return (await candidate()) as CandidateRunnerReport;
    },
    async run(request) {
      seen.oracle.push(request);
      const dir = join(request.workspace.hostPath, "candidate-output");
      seen.output.push({
        stdout: await readFile(join(dir, "stdout"), "utf8"),
        status: JSON.parse(await readFile(join(dir, "status.json"), "utf8")),
        mode: (await stat(join(dir, "stdout"))).mode & 0o777,
      });
      return oracle(request);
    },
  };
}

const exited = (stdout: string, exitCode = 0): CandidateRunnerReport => ({ state: "exited", exitCode, stdout: Buffer.from(stdout), stdoutOverflow: false });
const judge = (runner: OracleCommandRunner, extra: object = {}) =>
  runHiddenOracle(snapshot, { workspaceDir: workspace, privateRoot, runner, timeoutMs: 1000, ...extra });
const codeOf = async (promise: Promise<unknown>) => {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isOracleError(error) ? error.code : String(error);
};

describe("runHiddenOracle with a black-box oracle", () => {
  it("runs the candidate with nothing of the oracle anywhere, then the oracle over the captured output only", async () => {
    const runner = fakeRunner(async () => exited('{"answers":[42]}\n', 3));
    const verdict = await judge(runner, { extraEnv: { X: "1" } });
    expect(verdict).toMatchObject({ passed: true, outcome: "oracle-passed", output: "hidden oracle passed", oracleDigest: snapshot.binding.oracle_digest });

    const [candidate] = runner.seen.candidate;
    expect(candidate).toMatchObject({
      argv: ["/bin/sh", "-c", "node probe.mjs"],
      workspace: { hostPath: workspace, readOnly: true },
      network: "none",
      timeoutMs: 1000,
      maxStdoutBytes: MAX_CANDIDATE_STDOUT_BYTES,
    });
    // No oracle variable and no stage: the candidate run happens before anything hidden is written.
    expect(candidate?.env).toEqual({ X: "1" });
    expect(runner.seen.duringCandidate).toEqual([{ privateRoot: [], workspace: [] }]);

    const [oracle] = runner.seen.oracle;
    expect(oracle?.view).toBe("candidate-output");
    expect(oracle?.argv).toEqual(["/bin/sh", "-c", "compare the report"]);
    // The oracle's "workspace" is the harness-owned view in the private root, never the candidate's workspace.
    expect(oracle?.workspace.hostPath.startsWith(join(privateRoot, ".wfbench-candidate-"))).toBe(true);
    expect(oracle?.mount.hostTarget).toBe(join(oracle?.workspace.hostPath ?? "?", oracle?.mount.name ?? "?"));
    expect(oracle?.env).toEqual({
      X: "1",
      WFBENCH_CANDIDATE_OUTPUT: "/oracle/candidate-output",
      WFBENCH_ORACLE_ROOT: `/oracle/${oracle?.mount.name ?? "?"}`,
      GITNEXUS_BENCH_ORACLE_ROOT: `/oracle/${oracle?.mount.name ?? "?"}`,
    });
    // The candidate's bytes are copied as they were; its exit code is a measured fact beside them.
    expect(runner.seen.output).toEqual([{ stdout: '{"answers":[42]}\n', status: { schema_version: 1, exit_code: 3, stdout_bytes: 17 }, mode: 0o400 }]);
    expect(await readdir(privateRoot)).toEqual([]);
    expect(await readdir(workspace)).toEqual([]);
  });

  it("shows a host-path runner the view at its host path", async () => {
    const runner = fakeRunner(async () => exited("x"), undefined, null);
    await judge(runner);
    const [oracle] = runner.seen.oracle;
    expect(oracle?.env["WFBENCH_CANDIDATE_OUTPUT"]).toBe(join(oracle?.workspace.hostPath ?? "?", "candidate-output"));
  });

  it("fails the oracle's nonzero exit as an ordinary verdict", async () => {
    const runner = fakeRunner(async () => exited("x"), async () => ({ state: "exited", exitCode: 1 }));
    expect(await judge(runner)).toMatchObject({ passed: false, outcome: "oracle-failed", output: "hidden oracle failed" });
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it.each([
    ["timed out", { state: "timeout", exitCode: null, stdout: Buffer.alloc(0), stdoutOverflow: false }],
    ["was killed after its timeout", { state: "forced-kill", exitCode: 137, stdout: Buffer.alloc(0), stdoutOverflow: false }],
    ["overflowed its stdout bound", { state: "exited", exitCode: 0, stdout: Buffer.alloc(16), stdoutOverflow: true }],
    ["returned more bytes than the bound", { state: "exited", exitCode: 0, stdout: Buffer.alloc(MAX_CANDIDATE_STDOUT_BYTES + 1), stdoutOverflow: false }],
  ])("fails a candidate that %s without staging or running the oracle", async (_label, report) => {
    const runner = fakeRunner(async () => report);
    expect(await judge(runner)).toMatchObject({ passed: false, outcome: "oracle-failed" });
    expect(runner.seen.oracle).toEqual([]);
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it.each([
    ["the sweep cancelled it", async () => ({ state: "cancelled", exitCode: null, stdout: Buffer.alloc(0), stdoutOverflow: false }), /state cancelled/],
    ["its sandbox never started", async () => ({ state: "sandbox-setup-failure", exitCode: null, stdout: Buffer.alloc(0), stdoutOverflow: false }), /candidate-sandbox-setup-failure/],
    ["its runner threw", async () => Promise.reject(new Error("HIDDEN in a message")), /candidate-runner-error/],
    ["its runner reported no bytes", async () => ({ state: "exited", exitCode: 0, stdout: "text", stdoutOverflow: false }), /invalid-candidate-report/],
  ])("throws ORACLE_RUN_INFRASTRUCTURE when %s", async (_label, candidate, message) => {
    const runner = fakeRunner(candidate);
    const error: unknown = await judge(runner).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isOracleError(error) && error.code).toBe("ORACLE_RUN_INFRASTRUCTURE");
    expect(String(error)).toMatch(message);
    expect(String(error)).not.toContain("HIDDEN");
    expect(runner.seen.oracle).toEqual([]);
  });

  it("refuses a runner that cannot run a candidate, and bad roots, before any candidate code runs", async () => {
    const { runCandidate: _dropped, ...plain } = fakeRunner(async () => exited("x"));
    expect(await codeOf(judge(plain))).toBe("ORACLE_RUNNER_UNSUPPORTED");
    const runner = fakeRunner(async () => exited("x"));
    await chmod(privateRoot, 0o777);
    expect(await codeOf(judge(runner))).toBe("ORACLE_STAGE_INPUT_INVALID");
    expect(runner.seen.candidate).toEqual([]);
  });

  it("removes the view even when the oracle run is void", async () => {
    const runner = fakeRunner(async () => exited("x"), async () => ({ state: "timeout", exitCode: null }));
    expect(await codeOf(judge(runner))).toBe("ORACLE_RUN_INFRASTRUCTURE");
    expect(await readdir(privateRoot)).toEqual([]);
  });
});
