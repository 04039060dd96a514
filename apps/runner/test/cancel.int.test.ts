// Evidence durability of a real sweep: SIGTERM in the middle keeps every row already recorded byte for byte, records
// the running cell as `cancelled`, starts nothing new, still writes a report that says so, and exits 130. An --out that
// already holds a run is refused before anything is written.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveClaudeCli } from "@wfbench/scripted-model";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./fixtures/cancel", import.meta.url));
const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap") && spawnSync("/usr/bin/bwrap", ["--version"], { stdio: "ignore" }).status === 0;
const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
const cli = await resolveClaudeCli().then(
  () => null,
  (error: unknown) => (error as Error).message,
);
const runnable = hasBwrap && hasGit && cli === null;
if (!runnable && !required) process.stderr.write(`cancel.int.test.ts skipped (set CI=true to make this a failure): bwrap=${hasBwrap} git=${hasGit} cli=${cli ?? "ok"}\n`);

const base = mkdtempSync(join(tmpdir(), "wfbench-cancel-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function runnerArgs(out: string): string[] {
  return ["--conditions=@wfbench/source", "--import", "tsx", join(ROOT, "apps/runner/src/main.ts"), "--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--oracles", join(ROOT, "oracles"), "--arms", "baseline", "--out", out];
}

describe.skipIf(!runnable && !required)("an interrupted sweep", () => {
  it("keeps earlier rows, records the running cell as cancelled, writes a cancelled report and exits 130", async () => {
    const out = join(base, "interrupted");
    const child = spawn(process.execPath, runnerArgs(out), { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let before = "";
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
      child.stdout.on("data", (chunk: Buffer) => {
        const wasStarted = stdout.includes("[slow][baseline][run 0] starting");
        stdout += chunk.toString("utf8");
        if (!wasStarted && stdout.includes("[slow][baseline][run 0] starting")) {
          // Give the slow session time to reach its sleeping Bash call, then interrupt the sweep.
          setTimeout(() => {
            before = readFileSync(join(out, "results.jsonl"), "utf8");
            child.kill("SIGTERM");
          }, 2500);
        }
      });
    });
    expect(code).toBe(130);
    const after = readFileSync(join(out, "results.jsonl"), "utf8");
    expect(before.split("\n").filter(Boolean)).toHaveLength(1);
    expect(after.startsWith(before)).toBe(true);
    const rows = after.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((row) => [row["task"], row["error_kind"]])).toEqual([
      ["quick", "no-work-produced"],
      ["slow", "cancelled"],
    ]);
    expect(rows[1]?.["resolved"]).toBe(false);
    expect(stdout).not.toContain("[never]");
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("Sweep cancelled");
    expect(report).toContain("cancelled×1");
  }, 60_000);

  it("refuses an --out that already holds a run, and leaves it untouched", async () => {
    const out = join(base, "existing");
    mkdirSync(out);
    writeFileSync(join(out, "results.jsonl"), '{"sentinel":true}\n');
    const child = spawn(process.execPath, runnerArgs(out), { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root" }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--out .*existing.* is not empty/u);
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toBe('{"sentinel":true}\n');
  }, 30_000);
});
