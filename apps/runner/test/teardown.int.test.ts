// How a sweep ends when it is told to stop (reference §6.7). SIGTERM mid-cell: one cancellation reaches the running
// CLI, the workers are joined before the gateway and templates go, the runner exits 130 within 15 s with no process
// of its tree left, the results log intact and report.md written. SIGKILL mid-cell: nothing can clean up, yet every
// finished row parses, no sandbox outlives the runner (bwrap --die-with-parent), and the next sweep with the same
// TMPDIR removes the dead sweep's scratch dir (its recorded owner is gone).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/cancel", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const base = mkdtempSync(join(tmpdir(), "wfbench-teardown-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function args(out: string, suite = "suite.yaml"): string[] {
  return ["--tasks", join(FIXTURE, suite), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--out", out];
}

/** Every process that still runs (zombies are dead: only their exit status waits for a parent to collect it). */
function processTable(): Map<number, { ppid: number; start: string; cmdline: string }> {
  const table = new Map<number, { ppid: number; start: string; cmdline: string }>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/u.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/gu, " ");
      table.set(Number(name), { ppid: Number(fields[1]), start: fields[19] ?? "", cmdline });
    } catch {
      // The process exited while the table was read.
    }
  }
  return table;
}

/** The runner's descendants (pid → start time), read while it runs. */
function descendants(root: number): Map<number, string> {
  const table = processTable();
  const found = new Map<number, string>();
  let frontier = [root];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [pid, info] of table) {
      if (!frontier.includes(info.ppid) || found.has(pid)) continue;
      found.set(pid, info.start);
      next.push(pid);
    }
    frontier = next;
  }
  return found;
}

/** Processes still alive from `seen` (same pid and start time), plus any whose argv names `marker` (the test's TMPDIR). */
function leftovers(seen: ReadonlyMap<number, string>, marker: string): string[] {
  const table = processTable();
  const left: string[] = [];
  for (const [pid, info] of table) {
    if (seen.get(pid) === info.start || info.cmdline.includes(marker)) left.push(`${pid} ${info.cmdline.slice(0, 200)}`);
  }
  return left;
}

async function settleLeftovers(seen: ReadonlyMap<number, string>, marker: string, ms: number): Promise<string[]> {
  const until = Date.now() + ms;
  let left = leftovers(seen, marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = leftovers(seen, marker);
  }
  return left;
}

function scratchDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith("wfbench-run-"));
}

describe.skipIf(tools.skip)("stopping a sweep", () => {
  it("SIGTERM mid-cell: exit 130 within 15 s, no process of the runner left, rows intact, report written", async () => {
    const tmp = join(base, "term-tmp");
    mkdirSync(tmp);
    const out = join(base, "term-out");
    let seen = new Map<number, string>();
    let signalledAt = 0;
    let interrupting = false;
    const { code } = await runRunner(args(out), {
      env: { TMPDIR: tmp },
      onStdout: (sofar, child: ChildProcess) => {
        if (interrupting || !sofar.includes("[slow][baseline][run 0] starting")) return;
        interrupting = true;
        // Let the slow session reach its sleeping Bash call, note the whole process tree, then SIGTERM the runner.
        setTimeout(() => {
          seen = descendants(child.pid as number);
          signalledAt = Date.now();
          child.kill("SIGTERM");
        }, 2500);
      },
    });
    const elapsed = Date.now() - signalledAt;
    expect(code).toBe(130);
    expect(elapsed).toBeLessThan(15_000);
    // The slow cell's CLI was running inside bwrap when the signal came.
    expect([...seen.keys()].length).toBeGreaterThan(0);
    expect(await settleLeftovers(seen, tmp, 0)).toEqual([]);
    const rows = readResultRows(out);
    expect(rows.map((row) => [row["task"], row["error_kind"]])).toEqual([
      ["quick", "no-work-produced"],
      ["slow", "cancelled"],
    ]);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("Sweep cancelled");
    expect(scratchDirs(tmp)).toEqual([]);
  }, 90_000);

  it("SIGKILL mid-cell: finished rows parse, no sandbox outlives the runner, the next sweep reaps the scratch dir", async () => {
    const tmp = join(base, "kill-tmp");
    mkdirSync(tmp);
    const out = join(base, "kill-out");
    let seen = new Map<number, string>();
    let killing = false;
    const { code } = await runRunner(args(out), {
      env: { TMPDIR: tmp },
      onStdout: (sofar, child: ChildProcess) => {
        if (killing || !sofar.includes("[slow][baseline][run 0] starting")) return;
        killing = true;
        setTimeout(() => {
          seen = descendants(child.pid as number);
          child.kill("SIGKILL");
        }, 2500);
      },
    });
    expect(code).toBeNull();
    expect(seen.size).toBeGreaterThan(0);
    // bwrap --die-with-parent takes the sandboxed CLI down with the runner; give the kernel a moment to deliver it.
    expect(await settleLeftovers(seen, tmp, 5000)).toEqual([]);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(readResultRows(out).map((row) => row["task"])).toEqual(["quick"]);
    const stale = scratchDirs(tmp);
    expect(stale).toHaveLength(1);
    expect(existsSync(join(tmp, stale[0] as string, "owner.json"))).toBe(true);

    const again = await runRunner(args(join(base, "kill-again"), "quick-only.yaml"), { env: { TMPDIR: tmp } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`removed the scratch directory ${join(tmp, stale[0] as string)}`);
    expect(scratchDirs(tmp)).toEqual([]);
  }, 120_000);
});
