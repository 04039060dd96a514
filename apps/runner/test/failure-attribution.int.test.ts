// Failures a candidate causes are the candidate's (issue 13, class 4). Through the real runner, failing candidates
// try to turn their unresolved row into one the report and the gate drop: one removes `.git`, one SIGTERMs its own
// CLI from a Bash call (no result event), one SIGINTs it (a result event with is_error), one SIGTERMs it from a
// background process while the CLI waits for the model (the in-flight request aborted), one leaves a directory chain
// past PATH_MAX, one a 2 GiB sparse file, one sleeps in a Bash call past the session timeout, one makes the hidden
// oracle hang. An honest failing candidate runs beside them, and a cell whose model
// request fails upstream (an outage the candidate did not cause) shows the exclusion rule still holding. Before the fix these rows were
// infra-error / session-error / cleanup-failure and report.md said `0/0 (1 excluded)` for each. Judged from host evidence only: results.jsonl, report.md, the gateway's
// wire counts in the rows and the transcripts the parent captured.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/failure-attribution", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
// Entries past PATH_MAX defeat path-based removal; coreutils rm walks with openat and gets them all.
const removeAll = (path: string): void => void spawnSync("rm", ["-rf", "--", path]);

const EDIT = "printf '\\nedited\\n' >> /workspace/README.md";
const DEEP_TREE = `${EDIT}
python3 - <<'PY'
import os
os.chdir("/workspace")
depth = 0
while depth < 30:
    os.mkdir("d" * 200)
    os.chdir("d" * 200)
    depth += 1
open("leaf.txt", "w").write("deep\\n")
print("DEEP_PATH_LENGTH=" + str(len("/workspace") + depth * 201))
PY`;

/** The scripted trajectories, written as JSON (a YAML subset). */
function writeScript(path: string): void {
  const bash = (command: string, description: string): Record<string, unknown> => ({ content: [{ type: "tool_use", name: "Bash", input: { command, description, timeout: 120_000 } }], usage: { input_tokens: 10, output_tokens: 5 } });
  const done = { content: [{ type: "text", text: "done" }], usage: { input_tokens: 12, output_tokens: 1 } };
  // The second model turn answers only after 6 s, so a background kill 2 s after the tool returned lands mid-request.
  const slowDone = { ...done, delay_ms: 6000 };
  const trajectory = (name: string, marker: string, command: string, last = done): Record<string, unknown> => ({ name, match: { contains: marker, in: "first_user" }, turns: [bash(command, name), last] });
  const script = {
    version: 1,
    trajectories: [
      trajectory("honest-fail", "ATTR-HONEST-11aa", `${EDIT}; echo EDITED=yes`),
      trajectory("remove-git", "ATTR-RMGIT-22bb", `${EDIT}; rm -rf /workspace/.git; echo GIT_LEFT=$(ls -a /workspace | grep -c '^.git$')`),
      trajectory("kill-cli", "ATTR-KILL-33cc", `${EDIT}; echo KILLING=$(cat /proc/1/comm); kill -TERM 1; sleep 5; echo STILL_ALIVE=yes`),
      trajectory("deep-tree", "ATTR-DEEP-44dd", DEEP_TREE),
      trajectory("huge-file", "ATTR-HUGE-55ee", `${EDIT}; truncate -s 2G /workspace/huge.bin; echo HUGE_BYTES=$(stat -c %s /workspace/huge.bin)`),
      trajectory("interrupt-cli", "ATTR-INT-66ff", `${EDIT}; kill -INT 1; sleep 5; echo STILL_ALIVE=yes`),
      // The control: the model side fails (404 model not found; the CLI gives up after one retry). That is an outage,
      // not the candidate's doing, and stays excluded.
      { name: "outage", match: { contains: "ATTR-OUTAGE-88bb", in: "first_user" }, turns: [{ ...done, faults: [{ kind: "http_error", status: 404, error_type: "not_found_error", message: "model not found", times: 5 }] }] },
      // Candidate code the oracle imports never returns: the oracle times out (--timeout 25).
      trajectory("hang-oracle", "ATTR-HANG-99cc", "printf '\\nfor (;;) {}\\n' >> /workspace/src/math.js; echo HANG_PLANTED=yes"),
      // A Bash call that outlives the session timeout (--timeout 25): the harness's clock ran out in the agent's tool.
      trajectory("sleep-out", "ATTR-SLEEP-aa11", `${EDIT}; echo SLEEPING=yes; sleep 60; echo WOKE=yes`),
      trajectory("late-kill", "ATTR-LATE-77aa", `${EDIT}; (sleep 2; kill -TERM 1) >/dev/null 2>&1 & echo KILL_SCHEDULED=yes`, slowDone),
    ],
  };
  writeFileSync(path, JSON.stringify(script, null, 2));
}

const base = mkdtempSync(join(tmpdir(), "wfbench-attribution-"));
const out = join(base, "out");
const scratch = join(base, "tmp");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

function rowOf(task: string): Record<string, unknown> {
  const row = rows.find((r) => r["task"] === task);
  if (row === undefined) throw new Error(`no row for ${task}`);
  return row;
}

function transcriptOf(task: string): string {
  const name = readdirSync(join(out, "transcripts")).find((file) => file.startsWith(`${task}-`));
  return name === undefined ? "" : readFileSync(join(out, "transcripts", name), "utf8");
}

beforeAll(async () => {
  if (tools.skip) return;
  mkdirSync(scratch);
  writeScript(join(base, "script.json"));
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(base, "script.json"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--workers", "2", "--timeout", "25", "--out", out];
  result = await runRunner(args, { env: { TMPDIR: scratch } });
  rows = readResultRows(out);
  process.stderr.write(`failure attribution rows: ${rows.map((r) => `${String(r["task"])}=${String(r["error_kind"])}`).join(" ")}\n`);
}, 240_000);

afterAll(() => (process.env["KEEP_ATTRIBUTION"] === "1" ? undefined : removeAll(base)));

const TASKS = ["deep-tree", "hang-oracle", "honest-fail", "huge-file", "interrupt-cli", "kill-cli", "late-kill", "remove-git", "sleep-out"];
const EXCLUDED = ["session-error", "infra-error", "cleanup-failure", "evidence-unverified", "cancelled"];

function toolResults(task: string): string {
  return transcriptOf(task)
    .trimEnd()
    .split("\n")
    .filter((line) => line.includes('"tool_result"'))
    .join("\n");
}

describe.skipIf(tools.skip)("failing candidates cannot launder their failure into an exclusion", () => {
  it("records every cell and exits 0 (every arm has admissible runs)", () => {
    expect(rows.map((row) => row["task"]).sort()).toEqual([...TASKS, "outage"].sort());
    expect(result.code, result.stderr).toBe(0);
  });

  it("the attacks really ran (read from the parent-captured transcripts)", () => {
    expect(toolResults("remove-git")).toContain("GIT_LEFT=0");
    expect(toolResults("kill-cli")).toContain("KILLING=claude");
    expect(toolResults("kill-cli")).not.toContain("STILL_ALIVE=yes");
    expect(toolResults("interrupt-cli")).not.toContain("STILL_ALIVE=yes");
    expect(toolResults("late-kill")).toContain("KILL_SCHEDULED=yes");
    expect(toolResults("huge-file")).toContain("HUGE_BYTES=2147483648");
    expect(toolResults("deep-tree")).toMatch(/DEEP_PATH_LENGTH=(\d{4,})/u);
    expect(Number(/DEEP_PATH_LENGTH=(\d+)/u.exec(toolResults("deep-tree"))?.[1])).toBeGreaterThan(4096);
  });

  it("the honest failing candidate is oracle-failed, a valid unresolved run", () => {
    expect(rowOf("honest-fail")).toMatchObject({ error_kind: "oracle-failed", resolved: false });
  });

  it("candidate code that hangs the hidden oracle fails it, as a hanging verify fails verify", () => {
    expect(toolResults("hang-oracle")).toContain("HANG_PLANTED=yes");
    expect(rowOf("hang-oracle")).toMatchObject({ error_kind: "oracle-failed", resolved: false, oracle_passed: false });
    expect(String(rowOf("hang-oracle")["oracle_output"])).toMatch(/timeout|did not finish/u);
  });

  it("a CLI its own tools killed is session-aborted-by-agent: no result event, a signal the harness never sent", () => {
    for (const task of ["kill-cli", "late-kill"]) {
      const row = rowOf(task);
      expect(row).toMatchObject({ error_kind: "session-aborted-by-agent", resolved: false });
      expect(row["error_detail"]).toMatchObject({ process_state: "exited", returncode: 143 });
      expect(transcriptOf(task)).not.toContain('"type":"result"');
    }
    // The background kill landed while the CLI waited for the model: the gateway saw that request abandoned by the
    // client, which is not an outage.
    expect(rowOf("late-kill")["wire_failed_requests"]).toBe(1);
    expect(rowOf("kill-cli")["wire_failed_requests"]).toBe(0);
    // SIGINT: the CLI writes a result with is_error after an interrupt no headless user could have made.
    expect(rowOf("interrupt-cli")).toMatchObject({ error_kind: "session-aborted-by-agent", resolved: false });
    expect(transcriptOf("interrupt-cli")).toContain("[Request interrupted by user");
    // The harness's timeout expired while the agent's own Bash call slept, not while the CLI waited on the model.
    expect(rowOf("sleep-out")).toMatchObject({ error_kind: "session-aborted-by-agent", resolved: false, wire_failed_requests: 0 });
    expect(rowOf("sleep-out")["error_detail"]).toMatchObject({ process_state: "timeout" });
    expect(toolResults("sleep-out")).not.toContain("WOKE=yes");
  });

  it("a workspace git refuses afterwards is the candidate's failure, never infra-error", () => {
    // With a harness-owned git dir or bounded diffs these may measure fine and stay oracle-failed; either way they
    // are valid unresolved runs.
    for (const task of ["remove-git", "huge-file"]) {
      expect(["workspace-invalid", "oracle-failed"]).toContain(rowOf(task)["error_kind"]);
      expect(rowOf(task)["resolved"]).toBe(false);
    }
  });

  it("a chain past PATH_MAX is removed with its cell: the verdict stays oracle-failed, no scratch left", () => {
    expect(rowOf("deep-tree")).toMatchObject({ error_kind: "oracle-failed", resolved: false });
    expect(readdirSync(scratch).filter((name) => name.startsWith("wfbench-run-"))).toEqual([]);
    expect(result.stderr).not.toContain("could not remove");
  });

  it("report.md counts every one of them as a valid unresolved run (0/1), none excluded", () => {
    for (const task of TASKS) expect(EXCLUDED).not.toContain(rowOf(task)["error_kind"]);
    const report = readFileSync(join(out, "report.md"), "utf8");
    for (const task of TASKS) expect(report).toMatch(new RegExp(`\\| ${task} \\| probe \\| baseline \\| 0/1 \\|`, "u"));
    // Only the outage is excluded.
    expect(report).toMatch(/\| outage \| probe \| baseline \| 0\/0 \(1 excluded\) \|/u);
    expect(report.match(/excluded\)/gu)).toHaveLength(1);
    expect(report).toContain("1 run(s) hit session/infra errors or had unverifiable evidence and were excluded from the medians.");
  });

  it("an upstream failure stays session-error, excluded: the gateway saw the model side fail", () => {
    const row = rowOf("outage");
    expect(row).toMatchObject({ error_kind: "session-error", resolved: false });
    expect(row["wire_failed_requests"]).toBeGreaterThanOrEqual(1);
  });
});
