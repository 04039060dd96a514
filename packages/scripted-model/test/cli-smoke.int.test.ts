// The real, pinned Claude Code CLI, headless, against the scripted model on loopback (TCP and Unix socket).
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadScript } from "../src/load-script.js";
import type { Script, Trajectory } from "../src/schema.js";
import { startScriptedModel, type ScriptedModelListen, type ScriptedModelServer } from "../src/start-scripted-model.js";
import { DUMMY_KEY, claudeArgs, cleanEnv, probeClaudeCli, readLog, runClaude, toolResult, toolUses, type ClaudeRun, type StreamEvent } from "./support/run-claude.js";

const SCRIPT_PATH = fileURLToPath(new URL("../scripts/smoke-skill-write-bash.yaml", import.meta.url));
const REPO_FIXTURE = fileURLToPath(new URL("./fixtures/smoke-repo", import.meta.url));
const MARKER = "WFBENCH-SMOKE-7f3a";
const SKILL = "smoke-note";

const { runnable, required, requireCli, hasGit } = await probeClaudeCli("cli-smoke.int.test.ts");

function sumUsage(trajectory: Trajectory): Record<string, number> {
  const totals = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const turn of trajectory.turns) {
    totals.input_tokens += turn.usage.input_tokens;
    totals.output_tokens += turn.usage.output_tokens;
    totals.cache_read_input_tokens += turn.usage.cache_read_input_tokens;
    totals.cache_creation_input_tokens += turn.usage.cache_creation_input_tokens;
  }
  return totals;
}

function scriptedToolInput(trajectory: Trajectory, name: string): Record<string, unknown> {
  for (const turn of trajectory.turns) {
    for (const block of turn.content) if (block.type === "tool_use" && block.name === name) return block.input;
  }
  throw new Error(`the script has no ${name} tool_use`);
}




describe("Claude Code CLI smoke (real binary, scripted model)", () => {
  let root = "";
  let repo = "";
  let server: ScriptedModelServer | null = null;
  let script: Script;
  let trajectory: Trajectory;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "sm-smoke-"));
    repo = join(root, "repo");
    await cp(REPO_FIXTURE, repo, { recursive: true });
    await mkdir(join(root, "home"));
    await mkdir(join(root, "config"));
    if (hasGit) expect(spawnSync("git", ["init", "-q", "."], { cwd: repo }).status).toBe(0);
    const loaded = await loadScript(SCRIPT_PATH);
    if (!loaded.ok) throw new Error(loaded.error.message);
    script = loaded.value;
    const found = script.trajectories.find((candidate) => candidate.match.contains === MARKER);
    if (found === undefined) throw new Error(`no trajectory matches ${MARKER} in ${SCRIPT_PATH}`);
    trajectory = found;
  });

  afterEach(async () => {
    await server?.close();
    server = null;
    await rm(root, { recursive: true, force: true });
  });

  async function runSmoke(listen: ScriptedModelListen, endpoint: (server: ScriptedModelServer) => Record<string, string>): Promise<ClaudeRun> {
    const binary = requireCli();
    const logPath = join(root, "requests.jsonl");
    server = await startScriptedModel({ script, listen, requestLogPath: logPath });
    const env = cleanEnv(join(root, "home"), join(root, "config"), endpoint(server));
    const run = await runClaude(binary.path, claudeArgs(`Use the ${SKILL} skill to write the smoke note. ${MARKER}`, 8), env, repo);
    const context = `exit ${String(run.exitCode)}, ${run.ms} ms\nstderr: ${run.stderr.slice(0, 2000)}\nstdout: ${run.stdout.slice(-3000)}`;
    expect(run.timedOut, context).toBe(false);
    expect(run.exitCode, context).toBe(0);

    // Discovery: the init event lists the project skill.
    const init = run.events.find((event) => event.type === "system" && event.subtype === "init");
    expect(init?.skills, context).toContain(SKILL);

    // The Skill tool_use, then its non-error tool_result with the same id in a later event.
    const uses = toolUses(run.events);
    expect(uses.map((use) => use.name)).toEqual(["Skill", "Write", "Bash"]);
    for (const use of uses) {
      const result = toolResult(run.events, use.id, use.index);
      expect(result, `no tool_result for ${use.name} ${use.id}`).not.toBeNull();
      expect(result?.block["is_error"] ?? false, `${use.name} result: ${JSON.stringify(result?.block)}`).toBe(false);
    }
    expect(uses[0]?.input).toEqual(scriptedToolInput(trajectory, "Skill"));

    // Effects on disk: the Write content, and the Bash command's output computed from it.
    const written = scriptedToolInput(trajectory, "Write");
    const note = await readFile(join(repo, String(written["file_path"])), "utf8");
    expect(note).toBe(written["content"]);
    const recorded = await readFile(join(repo, "smoke-bash.txt"), "utf8");
    expect(Number(recorded.trim())).toBe(Buffer.byteLength(String(written["content"])));

    // Exactly one result, carrying the sums of the usage the script reported.
    const results = run.events.filter((event) => event.type === "result");
    expect(results).toHaveLength(1);
    const result = results[0] as StreamEvent & { usage: Record<string, unknown>; is_error: boolean; subtype: string };
    expect(result.is_error).toBe(false);
    expect(result.subtype).toBe("success");
    expect(result.usage).toMatchObject(sumUsage(trajectory));
    expect(result["result"]).toBe(
      trajectory.turns.at(-1)?.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    );

    // The request log shows every scripted turn served once, in order, with the key redacted.
    const log = await readLog(logPath);
    expect(log.map((entry) => [entry.trajectory, entry.turn, entry.outcome.kind])).toEqual(
      trajectory.turns.map((_, turn) => [trajectory.name, turn, "reply"]),
    );
    expect(log.every((entry) => entry.stream === true && entry.path === "/v1/messages")).toBe(true);
    expect(await readFile(logPath, "utf8")).not.toContain(DUMMY_KEY);
    return run;
  }

  it.skipIf(!runnable && !required)("runs Skill -> Write -> Bash -> text over 127.0.0.1", async () => {
    const run = await runSmoke({ host: "127.0.0.1", port: 0 }, (s) => ({ ANTHROPIC_BASE_URL: s.baseUrl }));
    expect(run.events[0]?.type).toBe("system");
  });

  it.skipIf(!runnable && !required)("runs the same trajectory through ANTHROPIC_UNIX_SOCKET", async () => {
    const socketPath = join(root, "model.sock");
    await runSmoke({ socketPath }, (s) => ({ ANTHROPIC_BASE_URL: s.baseUrl, ANTHROPIC_UNIX_SOCKET: socketPath }));
  });
});
