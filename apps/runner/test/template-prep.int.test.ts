// Templates are built `--workers` at a time before any paid work: a build that fails is reported for the first failing
// task in suite order, whichever build ends first, and no cell runs (judged from gateway-usage.jsonl, host evidence).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, runRunner } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const base = mkdtempSync(join(tmpdir(), "wfbench-template-prep-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A plain-file repository without `.claude/skills`: its template builds, but no skill arm can run on it. */
function bareRepo(name: string, bytes: number): string {
  const dir = join(base, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  // Different contents, so each is a template of its own (not one shared build).
  writeFileSync(join(dir, "src", "index.js"), `export const size = ${"1".repeat(bytes)};\n`);
  return dir;
}

const task = (id: string, repo: string): string => `  - id: ${id}
    class: probe
    repo: ${JSON.stringify(repo)}
    prompt: "TEMPLATE-PREP ${id}"
    verify: "true"
    oracle:
      command: "true"
      files: [{ source: demo/clamp.oracle.test.mjs, target: clamp.oracle.test.mjs }]
`;

describe.skipIf(tools.skip)("template preparation in parallel", () => {
  it("reports the first failing task in suite order, before any cell, whatever build ends first", async () => {
    // The first bad repository is the larger one, so its build tends to end after the second's.
    const suite = join(base, "suite.yaml");
    writeFileSync(suite, `skills: { plan: demo-plan, work: demo-work }\ntasks:\n${task("prep-good", join(REPO_ROOT, "tasks/demo/repos/mathlib"))}${task("prep-bad-first", bareRepo("bare-big", 200_000))}${task("prep-bad-second", bareRepo("bare-small", 1))}`);
    const out = join(base, "out");
    const { code, stderr } = await runRunner(["--tasks", suite, "--oracles", join(REPO_ROOT, "oracles"), "--script", join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "--arms", "workflow_direct", "--repeats", "1", "--workers", "3", "--out", out]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('task "prep-bad-first" field repo: the arms workflow_direct need .claude/skills/{demo-work} in the repository');
    expect(stderr).not.toContain("prep-bad-second");
    // No cell, not even the canary, reached the gateway.
    expect(existsSync(join(out, "gateway-usage.jsonl")) && readFileSync(join(out, "gateway-usage.jsonl"), "utf8").trim() !== "").toBe(false);
  }, 120_000);
});
