// An oracle root inside the task's repository must never reach the clone, whatever it is called: a directory named
// `..oracles` once passed for one outside the repository (its relative path starts with two dots) and was kept in the
// sanitized template the agent works in. Judged from host evidence: the template's sanitized commit
// (template-bindings.json), which is deterministic, must equal the one of the same repository without that directory.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { REPO_ROOT, probeRunnerTools, runRunner } from "./support/runner-harness.js";

const tools = await probeRunnerTools(import.meta.url);
const base = mkdtempSync(join(tmpdir(), "wfbench-oracle-inside-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The demo suite cut to demo-clamp on `repo`, with its relative mounts made absolute. */
function writeSuite(name: string, repo: string): string {
  const suite = parse(readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8")) as Record<string, unknown> & { tasks: { id: string; repo: string }[]; mcp_servers: { mounts: { source: string }[] }[]; review_cases: string };
  for (const server of suite.mcp_servers) for (const mount of server.mounts) mount.source = join(REPO_ROOT, "tasks", mount.source);
  suite.review_cases = join(REPO_ROOT, "tasks", suite.review_cases);
  suite.tasks = suite.tasks.filter((task) => task.id === "demo-clamp").map((task) => ({ ...task, repo }));
  const path = join(base, `${name}.yaml`);
  writeFileSync(path, stringify(suite));
  return path;
}

async function sweep(name: string, repo: string, oracles: string): Promise<{ sha: string; resolved: unknown }> {
  const out = join(base, `out-${name}`);
  const { code, stderr } = await runRunner(["--tasks", writeSuite(name, repo), "--oracles", oracles, "--script", join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "--arms", "baseline", "--repeats", "1", "--out", out]);
  expect(code, stderr).toBe(0);
  const bindings = JSON.parse(readFileSync(join(out, "template-bindings.json"), "utf8")) as { tasks: Record<string, { sanitized_sha: string }> };
  const row = JSON.parse(readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n")[0] ?? "{}") as { resolved?: unknown };
  return { sha: bindings.tasks["demo-clamp"]?.sanitized_sha ?? "", resolved: row.resolved };
}

describe.skipIf(tools.skip)("an oracle root inside the task repository", () => {
  it("is hidden from the clone even when its name starts with two dots", async () => {
    const pristine = join(base, "mathlib");
    cpSync(join(REPO_ROOT, "tasks/demo/repos/mathlib"), pristine, { recursive: true });
    const holding = join(base, "mathlib-with-oracles");
    cpSync(pristine, holding, { recursive: true });
    cpSync(join(REPO_ROOT, "oracles"), join(holding, "..oracles"), { recursive: true });

    const clean = await sweep("pristine", pristine, join(REPO_ROOT, "oracles"));
    const inside = await sweep("inside", holding, join(holding, "..oracles"));
    expect(clean.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(inside.sha).toBe(clean.sha);
    expect(typeof clean.resolved).toBe("boolean");
    expect(inside.resolved).toBe(clean.resolved);
  }, 240_000);
});
