// The demo task's real hidden oracle (tasks/demo.yaml + oracles/demo/), staged and run exactly as runCell does it:
// captured, then after the "model" its black-box candidate command and its oracle command run by
// createBwrapOracleRunner with the cell's allow-list env. It must pass a correct candidate and fail every candidate
// that did not earn it: one that exits 0 early, forges a summary or a report, or reads the hidden oracle.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOracle, createBwrapOracleRunner, runHiddenOracle, type OracleSnapshot } from "@wfbench/oracle-snapshot";
import { loadTaskSuite } from "@wfbench/task-suite";
import { buildSandboxEnv } from "../src/build-sandbox-env.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");

const CORRECT = `export function clamp(value, min, max) {
  if (min > max) throw new RangeError("empty range");
  return Math.min(Math.max(value, min), max);
}
`;

const CANDIDATES: Record<string, string> = {
  // Exits 0 the moment anything imports it: a node --test file that imports it reports no failure and exits 0.
  "exit-0-on-import": `process.exit(0);\nexport function clamp() { return 0; }\n`,
  // The same, with a correct body it never lets run, and a forged TAP summary on the way out.
  "forged-summary-then-exit-0": `process.stdout.write("# tests 2\\n# pass 2\\n# fail 0\\n");\nprocess.exit(0);\n${CORRECT}`,
  // Exits 0 from inside the function under test, at its first call.
  "exit-0-on-first-call": `export function clamp() { process.exit(0); }\n`,
  // The baseline's answer: right on the range, no RangeError.
  "no-range-error": `export function clamp(value, min, max) { return Math.min(Math.max(value, min), max); }\n`,
  // No clamping logic: answers, in call order, whatever a hidden oracle staged beside the workspace expects
  // (apps/runner/test/oracle-peek.int.test.ts shows the same code passing an in-process oracle).
  "reads-the-hidden-oracle": `import { readdirSync, readFileSync } from "node:fs";
const expected = [];
for (const entry of readdirSync("/workspace").filter((name) => name.startsWith(".wfbench-oracle-")))
  for (const file of readdirSync(\`/workspace/\${entry}\`))
    for (const m of readFileSync(\`/workspace/\${entry}/\${file}\`, "utf8").matchAll(/\\{ (returned: (-?\\d+)|rangeError: true) \\}/g))
      expected.push(m[2] === undefined ? { rangeError: true } : { returned: Number(m[2]) });
let call = 0;
export function clamp() {
  const answer = expected[call++ % Math.max(expected.length, 1)] ?? {};
  if (answer.rangeError) throw new RangeError("as expected");
  return answer.returned;
}
`,
  // Prints a correct report of its own on import, beside the probe's: two reports, neither believed.
  "prints-a-second-report": `process.stdout.write('\\n{"answers":[{"returned":5},{"returned":0},{"returned":10},{"returned":0},{"rangeError":true}]}\\n');
export function clamp(value, min, max) { return Math.min(Math.max(value, min), max); }
`,
};

let snapshot: OracleSnapshot;
let mathlib: string;
const dirs: string[] = [];

beforeAll(async () => {
  const suite = await loadTaskSuite(join(ROOT, "tasks/demo.yaml"), { homeDir: null });
  if (!suite.ok) throw new Error(suite.error.message);
  const task = suite.value.tasks.find((t) => t.id === "demo-clamp");
  if (task === undefined) throw new Error("demo-clamp is missing from tasks/demo.yaml");
  mathlib = task.repo;
  const captured = await captureOracle(task.oracle, join(ROOT, "oracles"));
  if (!captured.ok) throw new Error(captured.error.message);
  snapshot = captured.value;
  // The demo's oracle is black-box: its candidate runs without the stage, the oracle without the candidate's code.
  if (snapshot.mode !== "black-box" || snapshot.candidate === null) throw new Error("demo-clamp's oracle is not black-box");
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function judge(mathJs: string): Promise<boolean> {
  const root = mkdtempSync(join(tmpdir(), "demo-oracle-"));
  dirs.push(root);
  const workspace = join(root, "workspace");
  cpSync(mathlib, workspace, { recursive: true });
  writeFileSync(join(workspace, "src/math.js"), mathJs);
  const privateRoot = join(root, "private");
  mkdirSync(privateRoot, { mode: 0o700 });
  const verdict = await runHiddenOracle(snapshot, { workspaceDir: workspace, privateRoot, runner: createBwrapOracleRunner({ env: buildSandboxEnv() }), timeoutMs: 60_000 });
  return verdict.passed;
}

describe("the demo task's hidden oracle", () => {
  it.skipIf(!hasBwrap && !required)("passes a correct candidate", async () => {
    expect(await judge(CORRECT)).toBe(true);
  });

  it("holds the expectations the reads-the-hidden-oracle candidate would extract, if it could read them", () => {
    // The control for that candidate: its failure is the stage's absence from its sandbox, not a parser miss.
    const text = snapshot.readFile("clamp.oracle.test.mjs").toString("utf8");
    const found = [...text.matchAll(/\{ (returned: (-?\d+)|rangeError: true) \}/gu)].map((m) => m[1]);
    expect(found).toEqual(["returned: 5", "returned: 0", "returned: 10", "returned: 0", "rangeError: true"]);
  });

  it.skipIf(!hasBwrap && !required).each(Object.keys(CANDIDATES))("fails the %s candidate", async (name) => {
    expect(await judge(CANDIDATES[name] ?? "")).toBe(false);
  });
});
