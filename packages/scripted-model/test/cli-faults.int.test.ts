// Error injection seen through the real CLI: the server's faults must drive the CLI's retry and fallback paths.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadScript } from "../src/load-script.js";
import type { Script, Trajectory } from "../src/schema.js";
import { startScriptedModel, type ScriptedModelServer } from "../src/start-scripted-model.js";
import { claudeArgs, cleanEnv, probeClaudeCli, readLog, runClaude, type ClaudeRun } from "./support/run-claude.js";

const SCRIPT_PATH = fileURLToPath(new URL("./fixtures/cli-faults/script.yaml", import.meta.url));
const { runnable, required, requireCli } = await probeClaudeCli("cli-faults.int.test.ts");
const loaded = await loadScript(SCRIPT_PATH);
if (!loaded.ok) throw new Error(loaded.error.message);
const script: Script = loaded.value;

function trajectoryNamed(name: string): Trajectory {
  const found = script.trajectories.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`${SCRIPT_PATH} has no trajectory ${name}`);
  return found;
}

function finalText(trajectory: Trajectory): string {
  return trajectory.turns.at(-1)?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";
}

describe.skipIf(!runnable && !required)("Claude Code CLI against injected faults", () => {
  let root = "";
  let server: ScriptedModelServer | null = null;
  let logPath = "";

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "sm-faults-"));
    await mkdir(join(root, "work"));
    await mkdir(join(root, "home"));
    logPath = join(root, "requests.jsonl");
    server = await startScriptedModel({ script, listen: { host: "127.0.0.1", port: 0 }, requestLogPath: logPath });
  });

  afterEach(async () => {
    await server?.close();
    server = null;
    await rm(root, { recursive: true, force: true });
  });

  async function runWith(trajectory: Trajectory): Promise<ClaudeRun> {
    const binary = requireCli();
    const marker = trajectory.match.contains ?? "";
    const env = cleanEnv(join(root, "home"), join(root, "config"), { ANTHROPIC_BASE_URL: server?.baseUrl ?? "" });
    const run = await runClaude(binary.path, claudeArgs(`Say something. ${marker}`, 3), env, join(root, "work"));
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(0, 2000)).toBe(0);
    return run;
  }

  it("recovers from mid-stream errors through the non-streaming fallback", async () => {
    const trajectory = trajectoryNamed("stream-error-fallback");
    const run = await runWith(trajectory);
    const log = await readLog(logPath);
    const faultTimes = trajectory.turns[0]?.faults[0]?.times ?? 0;
    expect(log.map((entry) => [entry.attempt, entry.stream, entry.outcome.kind])).toEqual([
      ...Array.from({ length: faultTimes }, (_, i) => [i + 1, true, "stream_error"]),
      [faultTimes + 1, false, "reply"],
    ]);
    const result = run.events.find((event) => event.type === "result");
    expect(result?.["is_error"]).toBe(false);
    expect(result?.["result"]).toBe(finalText(trajectory));
  });

  it("retries an HTTP 529 after an api_retry event", async () => {
    const trajectory = trajectoryNamed("http-529-once");
    const run = await runWith(trajectory);
    const retries = run.events.filter((event) => event.type === "system" && event.subtype === "api_retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]?.["error_status"]).toBe(529);
    expect((await readLog(logPath)).map((entry) => entry.outcome.status)).toEqual([529, 200]);
    const result = run.events.find((event) => event.type === "result");
    expect(result?.["result"]).toBe(finalText(trajectory));
    expect(result?.["usage"]).toMatchObject({ input_tokens: trajectory.turns[0]?.usage.input_tokens });
  });

  it("re-asks at the same conversation position when content_block_stop is missing", async () => {
    const trajectory = trajectoryNamed("missing-block-stop");
    const run = await runWith(trajectory);
    const log = await readLog(logPath);
    expect(log.map((entry) => [entry.turn, entry.attempt, entry.outcome.kind])).toEqual([
      [0, 1, "omit_content_block_stop"],
      [0, 2, "reply"],
    ]);
    const nudge = run.events.find(
      (event) => event.type === "user" && JSON.stringify(event.message?.content ?? []).includes("no visible output"),
    );
    expect(nudge).toBeDefined();
    const result = run.events.find((event) => event.type === "result");
    expect(result?.["result"]).toBe(finalText(trajectory));
    // Measured on 2.1.332: the dropped message's usage is still counted, so the total covers both requests.
    expect(result?.["usage"]).toMatchObject({ input_tokens: log.length * (trajectory.turns[0]?.usage.input_tokens ?? 0) });
  });
});
