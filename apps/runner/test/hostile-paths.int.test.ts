// Where the host reads what a cell or a candidate handed it (issue 13, class 7), through the real runner: a plan
// session plants `docs` as a link onto a host directory holding plans/ (the plan listing must not follow it); a
// candidate overlay hard-links a host file (refused as bad input); a plain task repository holding a symlink is bad
// input too (exit 2, before any cell). Judged from the runner's exit code, stderr and results.jsonl.
import { cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner, type RunnerResult } from "./support/runner-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/hostile-paths", import.meta.url));
const tools = await probeRunnerTools(import.meta.url);
const base = mkdtempSync(join(tmpdir(), "wfbench-paths-"));
const hostDocs = join(base, "host-docs");

/** The plan session invokes its skill (so the session is ok), then replaces `docs` with a link onto hostDocs. */
function writeScript(path: string): void {
  const script = {
    version: 1,
    trajectories: [
      {
        name: "docs-link-plan",
        match: { regex: "Use the demo-plan skill for:[\\s\\S]*PATHS-DOCS-LINK-3e7a", in: "first_user" },
        turns: [
          { content: [{ type: "tool_use", name: "Skill", input: { skill: "demo-plan" } }], usage: { input_tokens: 10, output_tokens: 5 } },
          { content: [{ type: "tool_use", name: "Bash", input: { command: `rm -rf /workspace/docs; ln -s ${hostDocs} /workspace/docs; echo LINKED=$(readlink /workspace/docs)`, description: "plant the link" } }], usage: { input_tokens: 10, output_tokens: 5 } },
          { content: [{ type: "text", text: "The plan is at docs/plans/host-plan.md." }], usage: { input_tokens: 12, output_tokens: 1 } },
        ],
      },
    ],
  };
  writeFileSync(path, JSON.stringify(script, null, 2));
}

let sweep: RunnerResult = { code: null, stdout: "", stderr: "" };
let rows: Record<string, unknown>[] = [];
const out = join(base, "out");

beforeAll(async () => {
  if (tools.skip) return;
  mkdirSync(join(hostDocs, "plans"), { recursive: true });
  writeFileSync(join(hostDocs, "plans", "host-plan.md"), "# a host file, not the agent's plan\n");
  writeScript(join(base, "script.json"));
  sweep = await runRunner(["--tasks", join(FIXTURE, "suite.yaml"), "--script", join(base, "script.json"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "workflow", "--out", out]);
  rows = readResultRows(out);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(tools.skip)("host reads of cell and candidate paths", () => {
  it("the plan listing never follows a planted docs link: no plan produced, the link named", () => {
    const transcripts = readdirSync(join(out, "transcripts")).map((name) => readFileSync(join(out, "transcripts", name), "utf8"));
    // The link was really planted (the tool result in the parent-captured transcript).
    expect(transcripts.some((text) => text.includes(`LINKED=${hostDocs}`) && text.includes('"tool_result"'))).toBe(true);
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ task: "docs-link", arm: "workflow", plan_produced: false, error_kind: "plan-evidence-invalid", resolved: false });
    // The linked component is named (`docs`), never a host file behind it.
    expect(rows[0]?.["error_detail"]).toMatch(/^plan directory holds links or special files: docs(?:\/plans)?$/u);
  });

  it("refuses a candidate overlay file hard-linked to a host file: exit 2, no cell run", async () => {
    const overlay = join(base, "overlay");
    mkdirSync(join(overlay, ".claude/skills/demo-work"), { recursive: true });
    const hostFile = join(base, "host-skill.md");
    writeFileSync(hostFile, "---\nname: demo-work\ndescription: host bytes\n---\nhost\n");
    linkSync(hostFile, join(overlay, ".claude/skills/demo-work/SKILL.md"));
    const overlayOut = join(base, "overlay-out");
    const result = await runRunner(["--candidate-overlay", overlay, "--out", overlayOut]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("rule hard-link");
    expect(existsSync(join(overlayOut, "results.jsonl"))).toBe(false);
  });

  it("a plain task repository holding a symlink is bad input: exit 2 before any cell", async () => {
    const repo = join(base, "plain-repo");
    cpSync(join(REPO_ROOT, "tasks/demo/repos/mathlib"), repo, { recursive: true });
    symlinkSync("/etc/passwd", join(repo, "leak"));
    writeFileSync(
      join(base, "plain-suite.yaml"),
      ["skills: { plan: demo-plan, work: demo-work }", "tasks:", "  - id: plain-link", "    class: probe", "    repo: ./plain-repo", '    prompt: "x"', '    verify: "true"', "    oracle:", '      command: "true"', "      files: [{ source: demo/clamp.oracle.test.mjs, target: clamp.oracle.test.mjs }]", ""].join("\n"),
    );
    const badOut = join(base, "plain-out");
    const result = await runRunner(["--tasks", join(base, "plain-suite.yaml"), "--script", join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "--oracles", join(REPO_ROOT, "oracles"), "--arms", "baseline", "--out", badOut]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${join(repo, "leak")} is not a regular file or directory`);
    expect(result.stderr).not.toContain("TASK_SUITE_SOURCE_INVALID");
    expect(existsSync(join(badOut, "results.jsonl"))).toBe(false);
  });
});
