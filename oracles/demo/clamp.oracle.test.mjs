// Hidden oracle of the demo task demo-clamp: staged read-only beside the candidate only after the model exited.
// The candidate's module is loaded only in a child process. Code that runs on import or on call (process.exit(0), a
// patched assert, a printed test summary) therefore cannot touch the process that decides: the child must answer
// every case, with this run's nonce, and exit 0, or the tests below fail. The oracle command also checks that
// exactly these two tests ran and passed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

const MODULE = new URL("../src/math.js", import.meta.url).href;
const CASES = [
  [5, 0, 10],
  [-1, 0, 10],
  [11, 0, 10],
  [0, 0, 0],
  [1, 10, 0],
];
const PROBE = `
const nonce = process.env.WFBENCH_ORACLE_NONCE;
const answers = [];
const m = await import(${JSON.stringify(MODULE)});
for (const [value, min, max] of ${JSON.stringify(CASES)}) {
  try {
    answers.push({ returned: m.clamp(value, min, max) });
  } catch (error) {
    answers.push({ rangeError: error instanceof RangeError });
  }
}
process.stdout.write("\\n" + JSON.stringify({ nonce, answers }) + "\\n");
`;

let cached;
function probe() {
  if (cached !== undefined) return cached;
  const nonce = randomBytes(16).toString("hex");
  const child = spawnSync(process.execPath, ["--input-type=module", "--eval", PROBE], {
    encoding: "utf8",
    env: { ...process.env, WFBENCH_ORACLE_NONCE: nonce },
    timeout: 60_000,
    maxBuffer: 1024 * 1024,
  });
  const reports = (child.stdout ?? "")
    .split("\n")
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line);
        return parsed !== null && parsed.nonce === nonce && Array.isArray(parsed.answers) ? [parsed.answers] : [];
      } catch {
        return [];
      }
    });
  cached = { status: child.status, signal: child.signal, answers: reports.length === 1 ? reports[0] : null };
  return cached;
}

function answers() {
  const run = probe();
  assert.equal(run.signal, null, "the candidate's process was killed");
  assert.equal(run.status, 0, "the candidate's process did not exit 0");
  assert.ok(run.answers !== null && run.answers.length === CASES.length, "the candidate's process did not answer every case");
  return run.answers;
}

test("clamp limits a value to [min, max]", () => {
  const got = answers();
  assert.deepEqual(got.slice(0, 4), [{ returned: 5 }, { returned: 0 }, { returned: 10 }, { returned: 0 }]);
});

test("clamp refuses an empty range", () => {
  assert.deepEqual(answers()[4], { rangeError: true });
});
