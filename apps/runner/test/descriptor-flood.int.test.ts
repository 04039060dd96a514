// One cell must not be able to take the sweep down (issue 13, class 6). Through the real runner, three cells run at
// once: one floods the gateway's Unix socket with half-open connections from 24 processes (more descriptors than the
// runner has, if the gateway accepted them all), one leaves a directory chain past PATH_MAX in its workspace, and an
// honest one works beside them. The sweep must still record every row, write report.md, exit as usual, and either
// remove its scratch dir or name what it left behind in a warning.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/descriptor-flood", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
// Entries past PATH_MAX defeat path-based removal; coreutils rm walks with openat and gets them all.
const removeAll = (path: string): void => void spawnSync("rm", ["-rf", "--", path]);

const DEEP_TREE = `python3 - <<'PY'
import os
os.chdir("/workspace")
depth = 0
while depth < 30:
    os.mkdir("d" * 200)
    os.chdir("d" * 200)
    depth += 1
print("DEEP_PATH_LENGTH=" + str(len("/workspace") + depth * 201))
PY`;

/** The scripted trajectories, written as JSON (a YAML subset) so the flood program stays a readable .py file. */
function writeScript(path: string): void {
  const bash = (command: string, description: string): Record<string, unknown> => ({ content: [{ type: "tool_use", name: "Bash", input: { command, description, timeout: 120_000 } }], usage: { input_tokens: 10, output_tokens: 5 } });
  const done = { content: [{ type: "text", text: "done" }], usage: { input_tokens: 12, output_tokens: 1 } };
  const flood = `python3 - <<'PY'\n${readFileSync(join(FIXTURE, "flood.py"), "utf8")}PY`;
  const script = {
    version: 1,
    trajectories: [
      { name: "flood", match: { contains: "FLOOD-7e21", in: "first_user" }, turns: [bash(flood, "flood the gateway socket"), done] },
      { name: "deep-tree", match: { contains: "DEEP-TREE-4b90", in: "first_user" }, turns: [bash(DEEP_TREE, "build a deep tree"), done] },
      // Its model requests (before and after the sleep) fall in the middle of the flood.
      { name: "steady", match: { contains: "STEADY-0c3d", in: "first_user" }, turns: [bash("sleep 3; echo STEADY_DONE=yes", "wait a little"), done] },
    ],
  };
  writeFileSync(path, JSON.stringify(script, null, 2));
}

const base = mkdtempSync(join(tmpdir(), "wfbench-flood-"));
const out = join(base, "out");
const scratch = join(base, "tmp");
let result: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];

function toolOutput(task: string): string {
  const name = readdirSync(join(out, "transcripts")).find((file) => file.startsWith(`${task}-`));
  if (name === undefined) return "";
  return readFileSync(join(out, "transcripts", name), "utf8");
}

function reported(text: string, key: string): number | null {
  const match = new RegExp(`${key}=(\\d+)`, "u").exec(text);
  return match === null ? null : Number(match[1]);
}

beforeAll(async () => {
  if (tools.skip) return;
  mkdirSync(scratch);
  writeScript(join(base, "script.json"));
  const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(base, "script.json"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--workers", "3", "--out", out];
  // TMPDIR is the runner's own: whatever scratch it leaves is visible here, apart from other tests' runners.
  result = await runRunner(args, { env: { TMPDIR: scratch } });
  rows = readResultRows(out);
}, 120_000);

afterAll(() => (process.env["KEEP_FLOOD"] === "1" ? undefined : removeAll(base)));

describe.skipIf(tools.skip)("a sweep with a descriptor-flooding cell and a PATH_MAX cell", () => {
  it("records a row for every cell, writes report.md and exits as usual (0: the arm has admissible rows)", () => {
    expect(result.code, result.stderr).toBe(0);
    expect(rows.map((row) => row["task"]).sort()).toEqual(["deep-tree", "flood", "steady"]);
    const report = readFileSync(join(out, "report.md"), "utf8");
    for (const task of ["deep-tree", "flood", "steady"]) expect(report).toContain(task);
    expect(report).not.toContain("Sweep aborted");
  });

  it("the honest cell running beside the flood finished its session and its work", () => {
    const steady = rows.find((row) => row["task"] === "steady");
    expect(steady?.["error_kind"]).toBe("no-work-produced");
    expect(toolOutput("steady")).toContain("STEADY_DONE=yes");
  });

  it("the flood really ran against the gateway, and the gateway's refusals are reported to the operator", () => {
    const text = toolOutput("flood");
    const connected = reported(text, "FLOOD_CONNECTED");
    const closed = reported(text, "FLOOD_CLOSED_BY_SERVER");
    process.stderr.write(`descriptor flood: connected=${String(connected)} closed_by_server=${String(closed)} connect_errors=${String(reported(text, "FLOOD_CONNECT_ERRORS"))} peak_held=${String(reported(text, "FLOOD_PEAK_HELD"))}\n`);
    expect(connected).not.toBeNull();
    // A cell that can reach the socket at all must see its strangers closed (more connections than the cap got in).
    if ((connected ?? 0) > 0) {
      expect(closed).toBeGreaterThan(0);
      expect(result.stderr).toMatch(/warning: the gateway refused or closed \d+ client connection/u);
    }
  });

  it("leaves no scratch behind, or names every entry it left in a warning", () => {
    const deep = toolOutput("deep-tree");
    expect(reported(deep, "DEEP_PATH_LENGTH")).toBeGreaterThan(4096);
    const left = readdirSync(scratch).filter((name) => name.startsWith("wfbench-run-"));
    for (const name of left) expect(result.stderr).toContain(`could not remove the scratch directory ${join(scratch, name)}`);
    if (left.length === 0) expect(result.stderr).not.toContain("could not remove the scratch directory");
    expect(existsSync(join(out, "results.jsonl"))).toBe(true);
  });
});
