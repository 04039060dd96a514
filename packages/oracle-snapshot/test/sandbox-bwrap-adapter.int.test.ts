import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOracleError } from "../src/errors.js";
import { createOracleSnapshot } from "../src/oracle-snapshot.js";
import { runHiddenOracle } from "../src/run-hidden-oracle.js";
import type { OracleSnapshot } from "../src/oracle-snapshot.js";
import { createSandboxBwrapOracleRunner } from "./helpers/sandbox-bwrap-runner.js";
import { hasBwrap, requireTools } from "./helpers/test-runners.js";

const SECRET = "HIDDEN-ORACLE-OUTPUT-b41c";
let base: string;
let workspace: string;
let privateRoot: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-sbw-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const snapshotOf = (command: string): OracleSnapshot =>
  createOracleSnapshot(command, [{ target: "hidden/expected.txt", payload: Buffer.from("42\n") }]);
const CHECK =
  'case "$WFBENCH_ORACLE_ROOT" in /workspace/.wfbench-oracle-*) ;; *) exit 3;; esac; ' +
  'test "$WFBENCH_ORACLE_ROOT" = "$GITNEXUS_BENCH_ORACLE_ROOT" && cmp -s "$WFBENCH_ORACLE_ROOT/hidden/expected.txt" answer.txt';
const judge = (snapshot: OracleSnapshot, runner = createSandboxBwrapOracleRunner(), timeoutMs = 20_000) =>
  runHiddenOracle(snapshot, { workspaceDir: workspace, privateRoot, runner, timeoutMs });

describe.skipIf(!hasBwrap && !requireTools)("runHiddenOracle through createBwrapOracleRunner and the real runSandboxed", () => {
  it("passes a correct candidate and fails a wrong one, with the stage at /workspace/.wfbench-oracle-*", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    const runner = createSandboxBwrapOracleRunner();
    const verdict = await judge(snapshotOf(CHECK), runner);
    expect(runner.raw[0]).toMatchObject({ backend: "bwrap", state: "exited" });
    expect(verdict).toMatchObject({ passed: true, output: "hidden oracle passed" });
    expect(runner.raw[0]?.exitCode).toBe(0);
    await writeFile(join(workspace, "answer.txt"), "41\n");
    expect(await judge(snapshotOf(CHECK), runner)).toMatchObject({ passed: false, output: "hidden oracle failed" });
    expect(runner.raw[1]?.exitCode).toBe(1);
    expect(await readdir(privateRoot)).toEqual([]);
    expect(await readdir(workspace)).toEqual(["answer.txt"]);
  });

  it("keeps the stage and the workspace read-only and the output out of the verdict", async () => {
    await writeFile(join(workspace, "answer.txt"), "41\n");
    const snapshot = snapshotOf(
      `echo ${SECRET}; ` +
        '(echo 41 > "$WFBENCH_ORACLE_ROOT/hidden/expected.txt") 2>/dev/null && exit 40; ' +
        '(touch "$WFBENCH_ORACLE_ROOT/planted") 2>/dev/null && exit 41; ' +
        "(echo 42 > answer.txt) 2>/dev/null && exit 42; " +
        CHECK,
    );
    const runner = createSandboxBwrapOracleRunner();
    const verdict = await judge(snapshot, runner);
    expect(runner.raw[0]?.stdout.toString()).toContain(SECRET);
    expect(runner.asked[0]).toMatchObject({ maxStdoutBytes: 0, stderrTailBytes: 0 });
    expect(verdict).toMatchObject({ passed: false });
    // 40/41/42 would mean a write got through; 1 is the honest comparison failing.
    expect(runner.raw[0]?.exitCode).toBe(1);
    expect(JSON.stringify(verdict)).not.toContain(SECRET);
  });

  it("maps a sandbox timeout to ORACLE_RUN_INFRASTRUCTURE and still cleans up", async () => {
    const error: unknown = await judge(snapshotOf(`echo ${SECRET}; sleep 30`), undefined, 400).catch((e: unknown) => e);
    expect(isOracleError(error) && error.code).toBe("ORACLE_RUN_INFRASTRUCTURE");
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(await readdir(privateRoot)).toEqual([]);
    expect(await readdir(workspace)).toEqual([]);
  });
});
