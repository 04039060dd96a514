import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOracleError } from "./errors.js";
import type { OracleCommandRunner, OracleRunRequest, OracleRunnerReport } from "./oracle-command-runner.js";
import { createOracleSnapshot } from "./oracle-snapshot.js";
import { readReviewLabels } from "./read-review-labels.js";
import { ORACLE_OUTPUT } from "./limits.js";
import { runHiddenOracle } from "./run-hidden-oracle.js";

const SECRET = "HIDDEN-ORACLE-OUTPUT-91d2";
let base: string;
let workspace: string;
let privateRoot: string;
const snapshot = createOracleSnapshot("run the hidden test", [
  { target: "a.oracle.test.ts", payload: Buffer.from("hidden\n") },
]);

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-orchestrate-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

// An in-process runner: it inspects what it was handed on disk, the way a sandbox would before mounting.
function inspectingRunner(
  answer: (request: OracleRunRequest) => Promise<unknown>,
  workspaceView: string | null = null,
): OracleCommandRunner & { requests: OracleRunRequest[] } {
  const requests: OracleRunRequest[] = [];
  return {
    requests,
    workspaceView,
    async run(request) {
      requests.push(request);
      return (await answer(request)) as OracleRunnerReport;
    },
  };
}
const options = (runner: OracleCommandRunner, extra: object = {}) => ({
  workspaceDir: workspace,
  privateRoot,
  runner,
  timeoutMs: 1000,
  ...extra,
});
const codeOf = async (promise: Promise<unknown>) => {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return { code: isOracleError(error) ? error.code : false, text: JSON.stringify({ ...(error as object), m: String(error) }) };
};

describe("runHiddenOracle", () => {
  it("describes a read-only, network-less run with the stage beside the candidate and both variable names", async () => {
    const runner = inspectingRunner(async (request) => {
      expect((await lstat(request.mount.hostTarget)).isDirectory()).toBe(true);
      expect(await readdir(request.mount.hostTarget)).toEqual([]);
      expect(await readFile(join(request.mount.source, "a.oracle.test.ts"), "utf8")).toBe("hidden\n");
      return { state: "exited", exitCode: 0 };
    }, "/workspace");
    const verdict = await runHiddenOracle(snapshot, options(runner, { extraEnv: { WFBENCH_ORACLE_ROOT: "/evil", X: "1" } }));
    const request = runner.requests[0];
    expect(request).toMatchObject({
      argv: ["/bin/sh", "-c", "run the hidden test"],
      workspace: { hostPath: workspace, readOnly: true },
      network: "none",
      output: "discard",
      timeoutMs: 1000,
    });
    expect(request?.mount.hostTarget).toBe(join(workspace, request?.mount.name ?? "?"));
    expect(request?.mount.source).toBe(join(privateRoot, request?.mount.name ?? "?"));
    expect(request?.env).toEqual({
      X: "1",
      WFBENCH_ORACLE_ROOT: `/workspace/${request?.mount.name ?? "?"}`,
      GITNEXUS_BENCH_ORACLE_ROOT: `/workspace/${request?.mount.name ?? "?"}`,
    });
    expect(verdict).toEqual({
      passed: true,
      outcome: "oracle-passed",
      output: "hidden oracle passed",
      oracleDigest: snapshot.binding.oracle_digest,
    });
    expect(await readdir(workspace)).toEqual([]);
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it("returns a nonzero exit as an ordinary failed verdict without any runner extras", async () => {
    const runner = inspectingRunner(async () => ({ state: "exited", exitCode: 2, stdout: SECRET, stderr: SECRET }));
    const verdict = await runHiddenOracle(snapshot, options(runner));
    expect(verdict).toEqual({
      passed: false,
      outcome: "oracle-failed",
      output: "hidden oracle failed",
      oracleDigest: snapshot.binding.oracle_digest,
    });
    expect(JSON.stringify(verdict)).not.toContain(SECRET);
  });

  // reference.md §4.2/§6.2: only pass/fail and the fixed strings are kept. An exit code is chosen by code that ran
  // with the hidden tests mounted (up to 8 bits per run), so it is not kept either.
  it.each([
    [0, true, "oracle-passed", "hidden oracle passed"],
    [1, false, "oracle-failed", "hidden oracle failed"],
    [113, false, "oracle-failed", "hidden oracle failed"],
  ])("keeps only pass/fail and the fixed strings for exit %i", async (exitCode, passed, outcome, output) => {
    const verdict = await runHiddenOracle(snapshot, options(inspectingRunner(async () => ({ state: "exited", exitCode }))));
    expect(verdict).toEqual({ passed, outcome, output, oracleDigest: snapshot.binding.oracle_digest });
    expect(ORACLE_OUTPUT).toEqual({
      passed: "hidden oracle passed",
      failed: "hidden oracle failed",
      unavailable: "hidden oracle snapshot unavailable",
    });
  });

  it.each([
    ["a timeout", async () => ({ state: "timeout", exitCode: null, stdout: SECRET })],
    ["a sandbox setup failure", async () => ({ state: "sandbox-setup-failure", exitCode: 1, stderrTail: SECRET })],
    ["an exit without a code", async () => ({ state: "exited", exitCode: null })],
    ["a malformed report", async () => ({ state: "exited", exitCode: "0", stdout: SECRET })],
    ["a runner that throws with the output in its message", async () => {
      throw new Error(`oracle printed ${SECRET}`);
    }],
  ])("throws ORACLE_RUN_INFRASTRUCTURE for %s, never carrying output, after cleanup", async (_label, answer) => {
    const { code, text } = await codeOf(runHiddenOracle(snapshot, options(inspectingRunner(answer))));
    expect(code).toBe("ORACLE_RUN_INFRASTRUCTURE");
    expect(text).not.toContain(SECRET);
    expect(await readdir(workspace)).toEqual([]);
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it("lets a tampered stage win over a passing exit", async () => {
    const runner = inspectingRunner(async (request) => {
      await rm(join(request.mount.source, "a.oracle.test.ts"));
      return { state: "exited", exitCode: 0 };
    });
    expect((await codeOf(runHiddenOracle(snapshot, options(runner)))).code).toBe("ORACLE_STAGE_TAMPERED");
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it("refuses to stage when already cancelled or given a bad timeout", async () => {
    const runner = inspectingRunner(async () => ({ state: "exited", exitCode: 0 }));
    const controller = new AbortController();
    controller.abort();
    expect((await codeOf(runHiddenOracle(snapshot, options(runner, { signal: controller.signal })))).code).toBe(
      "ORACLE_RUN_INFRASTRUCTURE",
    );
    expect((await codeOf(runHiddenOracle(snapshot, options(runner, { timeoutMs: 0 })))).code).toBe(
      "ORACLE_STAGE_INPUT_INVALID",
    );
    expect(runner.requests).toEqual([]);
    expect(await readdir(workspace)).toEqual([]);
  });
});

describe("readReviewLabels", () => {
  it("returns a copy of the captured review-labels.json bytes", () => {
    const labels = '{"schema_version":1,"findings":[]}';
    const review = createOracleSnapshot("test -s x", [{ target: "review-labels.json", payload: Buffer.from(labels) }]);
    const result = readReviewLabels(review);
    expect(result.ok && result.value.toString()).toBe(labels);
    if (result.ok) result.value.fill(0);
    expect(review.readFile("review-labels.json").toString()).toBe(labels);
  });

  it("refuses a snapshot without that target", () => {
    expect(readReviewLabels(snapshot)).toMatchObject({ ok: false, error: { rule: "review-labels-target" } });
  });
});
