// What the agent's own shell sees inside a cell: the runner's shell-prefix wrapper must leave it no key or token,
// uid 1000, only the loopback link, and no host home. Evidence is the parent-captured transcript.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveClaudeCli } from "@wfbench/scripted-model";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./fixtures/probe-env", import.meta.url));
const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap") && spawnSync("/usr/bin/bwrap", ["--version"], { stdio: "ignore" }).status === 0;
const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
const cli = await resolveClaudeCli().then(
  () => null,
  (error: unknown) => (error as Error).message,
);
const runnable = hasBwrap && hasGit && cli === null;
if (!runnable && !required) process.stderr.write(`sandbox-env.int.test.ts skipped (set CI=true to make this a failure): bwrap=${hasBwrap} git=${hasGit} cli=${cli ?? "ok"}\n`);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!runnable && !required)("the agent's shell inside a cell", () => {
  it("has a scrubbed environment, uid 1000, only lo and no host home", async () => {
    const base = mkdtempSync(join(tmpdir(), "wfbench-probe-"));
    dirs.push(base);
    const out = join(base, "out");
    const args = ["--conditions=@wfbench/source", "--import", "tsx", join(ROOT, "apps/runner/src/main.ts"), "--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--arms", "baseline", "--out", out];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root" }, stdio: "ignore" });
      child.on("error", reject);
      child.on("close", resolve);
    });
    const row = JSON.parse(readFileSync(join(out, "results.jsonl"), "utf8")) as Record<string, unknown>;
    // The probe changes nothing, so the pipeline's work check must call it out; the arm is then still admissible.
    expect(row["error_kind"]).toBe("no-work-produced");
    expect(code).toBe(0);
    const transcript = readdirSync(join(out, "transcripts"))[0] ?? "";
    const results = readFileSync(join(out, "transcripts", transcript), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { content?: unknown } })
      .flatMap((event) => (event.type === "user" && Array.isArray(event.message?.content) ? (event.message.content as { type?: string; content?: unknown }[]) : []))
      .filter((block) => block.type === "tool_result");
    expect(results).toHaveLength(1);
    const output = String(results[0]?.content);
    const env = Object.fromEntries(output.split("\n").filter((line) => /^[A-Z_]+=/u.test(line)).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
    expect(Object.keys(env).sort()).toEqual(["HOME", "HOSTHOME", "LANG", "LC_ALL", "LOGNAME", "PATH", "PWD", "SHLVL", "TERM", "TMPDIR", "USER", "_"]);
    expect(output).not.toMatch(/ANTHROPIC|API_KEY|TOKEN|REDACTED/u);
    expect(output).toMatch(/^1000$/mu);
    expect(output).toMatch(/^1$/mu);
    expect(env["HOSTHOME"]).toContain("No such file or directory");
  }, 60_000);
});
