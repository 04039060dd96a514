// Issue 13, class 5: candidate code reading the hidden oracle at oracle time. A scripted agent writes a src/math.js
// with no clamping logic at all; at oracle time it looks for a stage (/workspace/.wfbench-oracle-*) and answers what
// the hidden tests expect, in call order. Through the real runner it passes the demo's oracle in its old in-process
// form (the limit that mode keeps, shown here so the attack is known to work), and fails the same oracle in the
// black-box form tasks/demo.yaml now declares. Judged from host evidence only: results.jsonl rows and patches.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOracle } from "@wfbench/oracle-snapshot";
import { loadTaskSuite, type Task } from "@wfbench/task-suite";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/oracle-peek", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-oracle-peek-"));
const out = join(base, "out");
const oraclesRoot = join(base, "oracles");
const PROMPT = "ORACLE-PEEK-4b9e: Add a `clamp(value, min, max)` export to src/math.js (RangeError when min > max).";
let demoClamp: Task;
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];
const rowOf = (task: string): Record<string, unknown> => rows.find((row) => row["task"] === task) ?? {};

beforeAll(async () => {
  const demo = await loadTaskSuite(join(REPO_ROOT, "tasks/demo.yaml"), { homeDir: null });
  if (!demo.ok) throw new Error(demo.error.message);
  const found = demo.value.tasks.find((task) => task.id === "demo-clamp");
  if (found === undefined) throw new Error("demo-clamp is missing from tasks/demo.yaml");
  demoClamp = found;
  // The oracles root: the shipped one, plus the demo's former in-process oracle.
  cpSync(join(REPO_ROOT, "oracles"), oraclesRoot, { recursive: true });
  cpSync(join(FIXTURE, "oracles/demo/clamp.in-process.oracle.test.mjs"), join(oraclesRoot, "demo/clamp.in-process.oracle.test.mjs"));
  const task = { class: "probe", repo: demoClamp.repo, prompt: PROMPT, verify: demoClamp.verify };
  const suite = {
    skills: { plan: "demo-plan", work: "demo-work" },
    tasks: [
      {
        id: "peek-in-process",
        ...task,
        oracle: {
          command: [
            'out=$(node --test --test-reporter=tap "$WFBENCH_ORACLE_ROOT/clamp.oracle.test.mjs" 2>&1)',
            "printf '%s\\n' \"$out\" | grep -qx '# tests 2'",
            "printf '%s\\n' \"$out\" | grep -qx '# pass 2'",
            "printf '%s\\n' \"$out\" | grep -qx '# fail 0'",
          ].join(" && "),
          files: [{ source: "demo/clamp.in-process.oracle.test.mjs", target: "clamp.oracle.test.mjs" }],
        },
      },
      // Exactly the demo's shipped oracle, so this test fails if tasks/demo.yaml ever loses black-box mode.
      { id: "peek-black-box", ...task, oracle: demoClamp.oracle },
    ],
  };
  // JSON is YAML: the suite is written from the parsed demo task, so it cannot drift from tasks/demo.yaml.
  writeFileSync(join(base, "suite.yaml"), JSON.stringify(suite, null, 2));
  if (tools.skip) return;
  const args = ["--tasks", join(base, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", oraclesRoot, "--arms", "workflow_direct", "--workers", "2", "--out", out];
  result = await runRunner(args);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("a candidate that reads the hidden oracle at oracle time", () => {
  it("ran both cells to a verdict, with the same candidate and a passing visible verify in each", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(rows.map((row) => String(row["task"])).sort()).toEqual(["peek-black-box", "peek-in-process"]);
    const patches = rows.map((row) => readFileSync(join(out, String(row["patch_artifact"])), "utf8"));
    for (const patch of patches) {
      // It never solved the task: a lookup table and a reader of the stage, no range logic anywhere.
      expect(patch).toContain("ORACLE-PEEK");
      expect(patch).toContain(".wfbench-oracle-");
      expect(patch).not.toMatch(/Math\.(min|max)|min > max/u);
    }
    expect(patches[0]).toBe(patches[1]);
    for (const row of rows) expect(row).toMatchObject({ ok: true, skill_invoked: true, authored_tests_passed: true });
  });

  it("passes an in-process oracle: the stage sits beside the code that oracle imports (the mode's known limit)", () => {
    expect(rowOf("peek-in-process")).toMatchObject({ resolved: true, error_kind: null, oracle_passed: true, oracle_output: "hidden oracle passed" });
  });

  it("fails the demo's black-box oracle: its candidate run has no stage, its oracle run no candidate code", () => {
    expect(demoClamp.oracle.mode).toBe("black-box");
    expect(rowOf("peek-black-box")).toMatchObject({ resolved: false, error_kind: "oracle-failed", oracle_passed: false, oracle_output: "hidden oracle failed" });
  });

  it("binds the black-box oracle's candidate command into the row's oracle digests", async () => {
    const captured = await captureOracle(demoClamp.oracle, oraclesRoot);
    if (!captured.ok) throw new Error(captured.error.message);
    const row = rowOf("peek-black-box");
    expect(row["oracle_digest"]).toBe(captured.value.binding.oracle_digest);
    expect(row["oracle_command_digest"]).toBe(captured.value.binding.oracle_command_digest);
    const changed = await captureOracle({ ...demoClamp.oracle, candidate: `${String(demoClamp.oracle.candidate)} ` }, oraclesRoot);
    if (!changed.ok) throw new Error(changed.error.message);
    expect(changed.value.binding.oracle_command_digest).not.toBe(row["oracle_command_digest"]);
    expect(changed.value.binding.oracle_digest).not.toBe(row["oracle_digest"]);
  });
});
