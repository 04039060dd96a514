// The black-box oracle through the product runner (createBwrapOracleRunner over real bwrap). The candidate command
// looks for anything of the hidden oracle it could read and plants a file for the oracle; the oracle command checks
// the candidate's captured answer and that the candidate saw no stage, and itself sees no candidate workspace and
// nothing the candidate planted. The same look at an in-process oracle finds the stage (the control).
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBwrapOracleRunner } from "../src/create-bwrap-oracle-runner.js";
import { createOracleSnapshot } from "../src/oracle-snapshot.js";
import type { OracleSnapshot } from "../src/oracle-snapshot.js";
import { runHiddenOracle } from "../src/run-hidden-oracle.js";
import { hasBwrap, requireTools } from "./helpers/test-runners.js";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/home/agent", TMPDIR: "/tmp", LANG: "C.UTF-8" };
let base: string;
let workspace: string;
let privateRoot: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-black-box-int-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

// Everywhere a stage or its view could show up in a sandbox, and whether an oracle variable leaked in.
const LOOK = 'ls -a / /workspace /tmp /home/agent 2>/dev/null | grep -c "^\\.wfbench-"; test -e /oracle && echo VIEW=yes || echo VIEW=no; echo "ENV=${WFBENCH_ORACLE_ROOT:-none}"';
const CANDIDATE = `echo "ANSWER=$(cat answer.txt)"; printf 'STAGES='; ${LOOK}; echo planted > /tmp/planted; echo planted > /home/agent/planted`;
const ORACLE = [
  'out="$WFBENCH_CANDIDATE_OUTPUT/stdout"',
  'grep -qx "ANSWER=$(cat "$WFBENCH_ORACLE_ROOT/expected.txt")" "$out"',
  'grep -qx "STAGES=0" "$out"',
  'grep -qx "VIEW=no" "$out"',
  'grep -qx "ENV=none" "$out"',
  'grep -q \'"exit_code":0\' "$WFBENCH_CANDIDATE_OUTPUT/status.json"',
  // The oracle side: no candidate workspace, nothing the candidate planted in its own /tmp or home.
  "test ! -e /workspace/answer.txt",
  "test ! -e /tmp/planted",
  "test ! -e /home/agent/planted",
].join(" && ");
const EXPECTED = [{ target: "expected.txt", payload: Buffer.from("42\n") }];
const blackBox = (candidate = CANDIDATE, command = ORACLE): OracleSnapshot => createOracleSnapshot(command, EXPECTED, { mode: "black-box", candidate });
const judge = async (snapshot: OracleSnapshot, timeoutMs = 20_000) =>
  (await runHiddenOracle(snapshot, { workspaceDir: workspace, privateRoot, runner: createBwrapOracleRunner({ env: ENV, graceMs: 200 }), timeoutMs })).passed;

describe.skipIf(!hasBwrap && !requireTools)("a black-box oracle through createBwrapOracleRunner", () => {
  it("passes a correct candidate that saw no stage, while the oracle saw neither its workspace nor its plants", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    expect(await judge(blackBox())).toBe(true);
    expect(await readdir(privateRoot)).toEqual([]);
    expect(await readdir(workspace)).toEqual(["answer.txt"]);
  });

  it("fails a wrong candidate", async () => {
    await writeFile(join(workspace, "answer.txt"), "41\n");
    expect(await judge(blackBox())).toBe(false);
  });

  it("control: an in-process oracle's command does see the stage beside the workspace", async () => {
    await writeFile(join(workspace, "answer.txt"), "42\n");
    const look = createOracleSnapshot(`test "$(ls -a /workspace | grep -c '^\\.wfbench-oracle-')" = 1 && cat "$WFBENCH_ORACLE_ROOT/expected.txt" >/dev/null`, EXPECTED);
    expect(await judge(look)).toBe(true);
  });

  it("fails a candidate that floods stdout past 1 MiB, even when the oracle would pass anything", async () => {
    expect(await judge(blackBox("head -c 2000000 /dev/zero", "true"))).toBe(false);
    expect(await judge(blackBox("head -c 1000 /dev/zero", "true"))).toBe(true);
  });

  it("fails a candidate that outlives its timeout, without running the oracle", async () => {
    expect(await judge(blackBox("sleep 30", "true"), 1500)).toBe(false);
    expect(await readdir(privateRoot)).toEqual([]);
  });
});
