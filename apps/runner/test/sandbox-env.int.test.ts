// What the agent's own shell sees inside a cell: the runner's shell-prefix wrapper must leave it no key or token,
// uid 1000, only the loopback link, and no host home. Evidence is the parent-captured transcript.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/probe-env", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(tools.skip)("the agent's shell inside a cell", () => {
  it("has a scrubbed environment, uid 1000, only lo and no host home", async () => {
    const base = mkdtempSync(join(tmpdir(), "wfbench-probe-"));
    dirs.push(base);
    const out = join(base, "out");
    const args = ["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(FIXTURE, "script.yaml"), "--arms", "baseline", "--out", out];
    const { code } = await runRunner(args, { capture: false });
    // results.jsonl must hold exactly one row, as a whole-file JSON.parse once demanded.
    const rows = readResultRows(out);
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, unknown>;
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
