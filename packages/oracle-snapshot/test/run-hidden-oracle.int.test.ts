import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureOracle } from "../src/capture-oracle.js";
import { isOracleError } from "../src/errors.js";
import { createOracleSnapshot } from "../src/oracle-snapshot.js";
import { runHiddenOracle } from "../src/run-hidden-oracle.js";
import type { OracleCommandRunner } from "../src/oracle-command-runner.js";
import type { OracleSnapshot } from "../src/oracle-snapshot.js";
import { createBwrapTestRunner, createLeakyMountRunner, hasBwrap, hasUnshare, requireTools } from "./helpers/test-runners.js";

const SECRET = "HIDDEN-ORACLE-OUTPUT-7f3a";
let base: string;
let workspace: string;
let privateRoot: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-run-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

// Checks the candidate's answer against the hidden expectation and that both variable names point at the stage.
const CHECK =
  'test "$WFBENCH_ORACLE_ROOT" = "$GITNEXUS_BENCH_ORACLE_ROOT" && ' +
  'cmp -s "$WFBENCH_ORACLE_ROOT/hidden/expected.txt" answer.txt';
const checkSnapshot = (command = CHECK): OracleSnapshot =>
  createOracleSnapshot(command, [{ target: "hidden/expected.txt", payload: Buffer.from("42\n") }]);

const run = (snapshot: OracleSnapshot, runner: OracleCommandRunner, timeoutMs = 20_000) =>
  runHiddenOracle(snapshot, { workspaceDir: workspace, privateRoot, runner, timeoutMs });
const failure = async (promise: Promise<unknown>): Promise<Error & { code?: string }> => {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("expected a rejection");
  return error;
};
const expectCleanedUp = async () => {
  expect(await readdir(privateRoot)).toEqual([]);
  expect((await readdir(workspace)).filter((name) => name.startsWith(".wfbench-oracle-"))).toEqual([]);
};

describe.skipIf(!hasBwrap && !requireTools)("runHiddenOracle through a bwrap runner", () => {
  it("passes a correct candidate and fails a wrong one, leaving nothing staged", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    const runner = createBwrapTestRunner();
    const passed = await run(checkSnapshot(), runner);
    expect(passed).toEqual({
      passed: true,
      outcome: "oracle-passed",
      output: "hidden oracle passed",
      oracleDigest: checkSnapshot().binding.oracle_digest,
    });
    expect(runner.raw[0]?.exitCode).toBe(0);
    await expectCleanedUp();
    await writeFile(join(workspace, "answer.txt"), "41\n");
    expect(await run(checkSnapshot(), runner)).toMatchObject({ passed: false, outcome: "oracle-failed" });
    expect(runner.raw[1]?.exitCode).toBe(1);
    await expectCleanedUp();
  });

  it("points both variables at the mountpoint beside the candidate, not at the private stage", async () => {
    const snapshot = checkSnapshot(
      'case "$WFBENCH_ORACLE_ROOT" in "$PWD"/.wfbench-oracle-*) test -f "$WFBENCH_ORACLE_ROOT/hidden/expected.txt";; *) exit 3;; esac',
    );
    expect(await run(snapshot, createBwrapTestRunner())).toMatchObject({ passed: true });
  });

  it("keeps a failing oracle's stdout and stderr out of the verdict", async () => {
    const snapshot = checkSnapshot(`echo ${SECRET}; echo ${SECRET} >&2; cat "$WFBENCH_ORACLE_ROOT/hidden/expected.txt"; exit 1`);
    const runner = createBwrapTestRunner();
    const verdict = await run(snapshot, runner);
    // The runner really produced (and tried to hand back) the output: the test can fail.
    expect(runner.raw[0]?.stdout).toContain(SECRET);
    expect(runner.raw[0]?.stdout).toContain("42");
    expect(verdict).toEqual({
      passed: false,
      outcome: "oracle-failed",
      output: "hidden oracle failed",
      oracleDigest: snapshot.binding.oracle_digest,
    });
    expect(runner.raw[0]?.exitCode).toBe(1);
    expect(JSON.stringify(verdict)).not.toContain(SECRET);
  });

  it("turns a timeout into ORACLE_RUN_INFRASTRUCTURE with no output attached, and still cleans up", async () => {
    const runner = createBwrapTestRunner();
    const error = await failure(run(checkSnapshot(`echo ${SECRET}; sleep 30`), runner, 500));
    expect(error.code).toBe("ORACLE_RUN_INFRASTRUCTURE");
    expect(runner.raw[0]?.stdout).toContain(SECRET);
    expect(JSON.stringify({ ...error, text: error.message, cause: String(error.cause) })).not.toContain(SECRET);
    await expectCleanedUp();
  });

  it("makes writing into the stage during the oracle impossible (read-only mount)", async () => {
    await writeFile(join(workspace, "answer.txt"), "41\n");
    const snapshot = checkSnapshot(
      '(echo 41 > "$WFBENCH_ORACLE_ROOT/hidden/expected.txt") 2>/dev/null && exit 40; ' +
        '(touch "$WFBENCH_ORACLE_ROOT/hidden/planted") 2>/dev/null && exit 41; ' +
        "(echo 42 > answer.txt) 2>/dev/null && exit 42; " +
        CHECK,
    );
    const runner = createBwrapTestRunner();
    expect(await run(snapshot, runner)).toMatchObject({ passed: false });
    // 40/41/42 would mean a write got through; 1 is the honest comparison failing.
    expect(runner.raw[0]?.exitCode).toBe(1);
    await expectCleanedUp();
  });

  it("stages the captured bytes even when the oracles root changes after capture", async () => {
    const oracles = join(base, "oracles");
    await mkdir(join(oracles, "tasks"), { recursive: true });
    await writeFile(join(oracles, "tasks", "expected.txt"), "42\n");
    const captured = await captureOracle(
      { command: CHECK, files: [{ source: "tasks/expected.txt", target: "hidden/expected.txt" }] },
      oracles,
    );
    if (!captured.ok) throw new Error(captured.error.message);
    await writeFile(join(oracles, "tasks", "expected.txt"), "41\n");
    await writeFile(join(workspace, "answer.txt"), "41\n");
    expect(await run(captured.value, createBwrapTestRunner())).toMatchObject({ passed: false });
    await writeFile(join(workspace, "answer.txt"), "42\n");
    expect(await run(captured.value, createBwrapTestRunner())).toMatchObject({ passed: true });
  });

  it("refuses a FIFO as an oracle source without hanging", async () => {
    const oracles = join(base, "oracles");
    await mkdir(oracles);
    execFileSync("mkfifo", [join(oracles, "fifo")]);
    const captured = await captureOracle({ command: "true", files: [{ source: "fifo", target: "t" }] }, oracles);
    expect(captured).toMatchObject({ ok: false, error: { rule: "source-not-regular" } });
  });
});

describe.skipIf(!hasUnshare && !requireTools)("runHiddenOracle behind a broken sandbox (writable stage bind)", () => {
  it("voids a passing verdict when the oracle run rewrote a staged byte", async () => {
    await writeFile(join(workspace, "answer.txt"), "41\n");
    const snapshot = checkSnapshot(`chmod u+w "$WFBENCH_ORACLE_ROOT/hidden/expected.txt"; echo 41 > "$WFBENCH_ORACLE_ROOT/hidden/expected.txt"; ${CHECK}`);
    const runner = createLeakyMountRunner();
    const error = await failure(run(snapshot, runner));
    // The command itself "passed": only re-verification stands between it and a pass.
    expect(runner.raw[0]).toMatchObject({ state: "exited", exitCode: 0 });
    expect(error.code).toBe("ORACLE_STAGE_TAMPERED");
    await expectCleanedUp();
  });

  it("voids a verdict when the oracle run planted a file in the stage", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    const snapshot = checkSnapshot(`echo x > "$WFBENCH_ORACLE_ROOT/setup.ts"; ${CHECK}`);
    expect((await failure(run(snapshot, createLeakyMountRunner()))).code).toBe("ORACLE_STAGE_TAMPERED");
    await expectCleanedUp();
  });

  it("reports a mountpoint changed behind the mount as ORACLE_MOUNTPOINT_CHANGED", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    // Unmounting inside the namespace exposes the host mountpoint, which the run then fills.
    const snapshot = checkSnapshot(`${CHECK} && umount "$WFBENCH_ORACLE_ROOT" && touch "$WFBENCH_ORACLE_ROOT/planted"`);
    const error = await failure(run(snapshot, createLeakyMountRunner()));
    expect(isOracleError(error) && error.code).toBe("ORACLE_MOUNTPOINT_CHANGED");
    expect(await readdir(privateRoot)).toEqual([]);
  });
});
