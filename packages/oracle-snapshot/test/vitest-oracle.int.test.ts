import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureOracle } from "../src/capture-oracle.js";
import { createOracleSnapshot } from "../src/oracle-snapshot.js";
import { runHiddenOracle } from "../src/run-hidden-oracle.js";
import { validateOracleDeclaration } from "../src/validate-declaration.js";
import type { OracleSnapshot } from "../src/oracle-snapshot.js";
import { createBwrapTestRunner, hasBwrap, requireTools } from "./helpers/test-runners.js";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "fixtures");
// Stands in for the frozen dependency mounts of a real cell: the workspace's own node_modules.
const nodeModules = resolve(here, "../../../node_modules");
const ORACLE_COMMAND =
  'cd gitnexus && ./node_modules/.bin/vitest run --config "$GITNEXUS_BENCH_ORACLE_ROOT/vitest.config.mts" ' +
  '"$GITNEXUS_BENCH_ORACLE_ROOT/add.oracle.test.ts"';

let base: string;
let privateRoot: string;
let snapshot: OracleSnapshot;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-vitest-"));
  privateRoot = join(base, "private");
  await mkdir(privateRoot);
  await chmod(privateRoot, 0o700);
  const declaration = validateOracleDeclaration("add-task", {
    command: ORACLE_COMMAND,
    files: [
      { source: "vitest.config.mts", target: "vitest.config.mts" },
      { source: "add.oracle.test.ts", target: "add.oracle.test.ts" },
    ],
  });
  if (!declaration.ok) throw new Error(declaration.error.message);
  const captured = await captureOracle(declaration.value, join(fixtures, "oracles"));
  if (!captured.ok) throw new Error(captured.error.message);
  snapshot = captured.value;
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function makeWorkspace(candidate: string): Promise<string> {
  const workspace = join(base, "workspace");
  await cp(join(fixtures, candidate), workspace, { recursive: true });
  await symlink(nodeModules, join(workspace, "node_modules"));
  await symlink(nodeModules, join(workspace, "gitnexus", "node_modules"));
  return workspace;
}

async function judge(candidate: string, command?: string) {
  await rm(join(base, "workspace"), { recursive: true, force: true });
  const workspace = await makeWorkspace(candidate);
  const runner = createBwrapTestRunner();
  const judged =
    command === undefined
      ? snapshot
      : createOracleSnapshot(
          command,
          snapshot.files.map((file) => ({ target: file.target, payload: snapshot.readFile(file.target) })),
        );
  const verdict = await runHiddenOracle(judged, { workspaceDir: workspace, privateRoot, runner, timeoutMs: 60_000 });
  const left = (await readdir(workspace)).filter((name) => name.startsWith(".wfbench-oracle-") && !/^[.a-z-]+0{32}$/.test(name));
  expect(left).toEqual([]);
  return {
    verdict,
    exitCode: runner.raw[0]?.exitCode,
    stdout: `${runner.raw[0]?.stdout ?? ""}${runner.raw[0]?.stderr ?? ""}`,
  };
}

// The same attacks against oracle commands that do not pin their own config or that trust a guessable name: each
// attack then passes, which shows the assertions below can fail.
const UNPINNED = "cd gitnexus && ./node_modules/.bin/vitest run";
const PREDICTABLE =
  'cd gitnexus && ./node_modules/.bin/vitest run --config "$WFBENCH_ORACLE_ROOT/vitest.config.mts" ' +
  "../.wfbench-oracle-00000000000000000000000000000000/";

describe.skipIf(!hasBwrap && !requireTools)("a candidate cannot make the hidden vitest oracle pass vacuously", () => {
  it("passes a correct candidate and fails a wrong one on a real assertion", async () => {
    const correct = await judge("candidate-correct");
    expect(correct.verdict).toMatchObject({ passed: true });
    expect(correct.exitCode).toBe(0);
    expect(correct.stdout).toMatch(/Tests\W+1 passed/);
    const wrong = await judge("candidate-wrong");
    expect(wrong.verdict).toMatchObject({ passed: false });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stdout).toContain("expected -1 to be 5");
  });

  it.each([
    ["replaces the repo's test config", "candidate-replaced-config", UNPINNED],
    ["plants a setup file", "candidate-setup-file", UNPINNED],
    ["plants a passing test in a directory named like the stage", "candidate-fake-stage", PREDICTABLE],
  ])("fails a wrong candidate that %s", async (_label, candidate, vulnerable) => {
    const attacked = await judge(candidate);
    expect(attacked.verdict).toMatchObject({ passed: false, outcome: "oracle-failed" });
    expect(attacked.stdout).toContain("expected -1 to be 5");
    const unguarded = await judge(candidate, vulnerable);
    expect(unguarded.verdict).toMatchObject({ passed: true });
  });
});
