// Shared by the CLI integration tests: find the pinned binary, run it headless with a clean env, parse stream-json.
import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resolveClaudeCli, type ResolvedClaudeCli } from "@wfbench/claude-cli";
import type { RequestLogEntry } from "../../src/request-log.js";

export const DUMMY_KEY = "sk-ant-dummy-smoke-0000-not-a-real-key";
// Below vitest's 60 s test timeout, so the kill always comes from here and no CLI outlives its test.
const CLI_TIMEOUT_MS = 45_000;

/** Whether the CLI tests can run; under CI=true a missing binary or git must fail the test, never skip it. */
export async function probeClaudeCli(testFile: string): Promise<{
  runnable: boolean;
  required: boolean;
  hasGit: boolean;
  requireCli: () => ResolvedClaudeCli;
}> {
  const required = process.env["CI"] === "true";
  const cli: { ok: true; value: ResolvedClaudeCli } | { ok: false; error: unknown } = await resolveClaudeCli().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
  const runnable = cli.ok && hasGit;
  if (!runnable && !required) {
    const why = !cli.ok ? String((cli.error as Error).message) : "git is not on PATH";
    process.stderr.write(`${testFile} skipped (set CI=true to make this a failure): ${why}\n`);
  }
  const requireCli = (): ResolvedClaudeCli => {
    if (!cli.ok) throw cli.error;
    if (!hasGit) throw new Error("git is required for the CLI tests (apt-get install git)");
    return cli.value;
  };
  return { runnable, required, hasGit, requireCli };
}

export interface StreamEvent {
  type: string;
  subtype?: string;
  skills?: string[];
  message?: { content?: Array<Record<string, unknown>> };
  [key: string]: unknown;
}

export interface ClaudeRun {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  events: StreamEvent[];
  ms: number;
}

/** Runs the binary with exactly `env`, killing it (SIGKILL) after CLI_TIMEOUT_MS. */
export function runClaude(binary: string, args: readonly string[], env: Record<string, string>, cwd: string): Promise<ClaudeRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, CLI_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as StreamEvent);
      resolve({ exitCode, timedOut, stdout, stderr, events, ms: Math.round(performance.now() - started) });
    });
  });
}

/** Only what the CLI needs: no host credentials, proxies or settings leak into the session. */
export function cleanEnv(home: string, configDir: string, endpoint: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
    CLAUDE_CODE_MAX_RETRIES: "3",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...endpoint,
  };
}

/** The argv that worked against 2.1.332 as root: dontAsk + explicit allow list (bypassPermissions is refused as uid 0). */
export function claudeArgs(prompt: string, maxTurns: number): string[] {
  return [
    "-p",
    prompt,
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    "claude-sonnet-4-5",
    "--setting-sources",
    "project",
    "--tools",
    "Bash,Read,Edit,Write,Glob,Grep,Skill",
    "--permission-mode",
    "dontAsk",
    "--allowedTools",
    "Skill,Write,Bash,Read,Edit,Glob,Grep",
    "--strict-mcp-config",
    "--mcp-config",
    '{"mcpServers":{}}',
    "--max-turns",
    String(maxTurns),
    "--no-session-persistence",
  ];
}

/** Every tool_use block of the assistant events, with the index of the event carrying it. */
export function toolUses(events: readonly StreamEvent[]): Array<{ index: number; id: string; name: string; input: unknown }> {
  const found: Array<{ index: number; id: string; name: string; input: unknown }> = [];
  events.forEach((event, index) => {
    if (event.type !== "assistant") return;
    for (const block of event.message?.content ?? []) {
      if (block["type"] === "tool_use") found.push({ index, id: String(block["id"]), name: String(block["name"]), input: block["input"] });
    }
  });
  return found;
}

/** The first tool_result for `id` in a user event after event `after`. */
export function toolResult(events: readonly StreamEvent[], id: string, after: number): { index: number; block: Record<string, unknown> } | null {
  for (let index = after + 1; index < events.length; index += 1) {
    const event = events[index];
    if (event?.type !== "user") continue;
    const block = event.message?.content?.find((candidate) => candidate["type"] === "tool_result" && candidate["tool_use_id"] === id);
    if (block !== undefined) return { index, block };
  }
  return null;
}

/** Parses a JSONL request log. */
export async function readLog(path: string): Promise<RequestLogEntry[]> {
  const text = await readFile(path, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as RequestLogEntry);
}
