// Shared reader of the demo's black-box oracles (docs/task-writing.md). The candidate's code ran earlier, in its own
// sandbox without the hidden stage, through the task's `candidate` command; the harness wrote that run's stdout and
// exit code under $WFBENCH_CANDIDATE_OUTPUT. Those bytes are untrusted data: parsed here, never run. (clamp.oracle.test.mjs
// keeps its own copy of this reader: other suites stage that file alone.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const REPORT_PREFIX = '{"answers":';

/** The candidate probe's answers, one per case in its order; refuses a failed probe, a second report or a short list. */
export function readAnswers(expectedCount) {
  const output = process.env.WFBENCH_CANDIDATE_OUTPUT ?? "";
  const status = JSON.parse(readFileSync(join(output, "status.json"), "utf8"));
  assert.equal(status.exit_code, 0, "the candidate's process did not exit 0");
  // Exactly one report line: a candidate that prints its own report beside the probe's gets neither believed.
  const reports = readFileSync(join(output, "stdout"), "utf8").split("\n").filter((line) => line.startsWith(REPORT_PREFIX));
  assert.equal(reports.length, 1, "the candidate's process did not print exactly one report");
  const parsed = JSON.parse(reports[0]);
  assert.ok(Array.isArray(parsed.answers) && parsed.answers.length === expectedCount, "the candidate's process did not answer every case");
  return parsed.answers;
}
