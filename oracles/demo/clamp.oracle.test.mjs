// Hidden oracle of the demo task demo-clamp, in black-box mode (docs/task-writing.md). It never imports the
// candidate: the candidate's code ran before this file was staged, in its own sandbox without it, through the task's
// `candidate` command, and the harness wrote that run's stdout and exit code to $WFBENCH_CANDIDATE_OUTPUT. Code that
// runs on import or on call (process.exit(0), a patched assert, a printed test summary) therefore never reaches this
// process, and cannot read the expectations below. Those captured bytes are untrusted data: parsed, never run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const OUTPUT = process.env.WFBENCH_CANDIDATE_OUTPUT ?? "";
// One answer per input of the candidate command, in its order: [5, 0, 10], [-1, 0, 10], [11, 0, 10], [0, 0, 0], [1, 10, 0].
const EXPECTED = [{ returned: 5 }, { returned: 0 }, { returned: 10 }, { returned: 0 }, { rangeError: true }];
const REPORT_PREFIX = '{"answers":';

let cached;
function answers() {
  if (cached !== undefined) return cached;
  const status = JSON.parse(readFileSync(join(OUTPUT, "status.json"), "utf8"));
  assert.equal(status.exit_code, 0, "the candidate's process did not exit 0");
  // Exactly one report line: a candidate that prints its own report beside the probe's gets neither believed.
  const reports = readFileSync(join(OUTPUT, "stdout"), "utf8").split("\n").filter((line) => line.startsWith(REPORT_PREFIX));
  assert.equal(reports.length, 1, "the candidate's process did not print exactly one report");
  const parsed = JSON.parse(reports[0]);
  assert.ok(Array.isArray(parsed.answers) && parsed.answers.length === EXPECTED.length, "the candidate's process did not answer every case");
  cached = parsed.answers;
  return cached;
}

test("clamp limits a value to [min, max]", () => {
  assert.deepEqual(answers().slice(0, 4), EXPECTED.slice(0, 4));
});

test("clamp refuses an empty range", () => {
  assert.deepEqual(answers()[4], EXPECTED[4]);
});
