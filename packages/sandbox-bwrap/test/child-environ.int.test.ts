// The shells the real CLI starts for its Bash tool, seen by a process the agent left running in the same sandbox. The
// CLI is non-dumpable (execute-only copy), but it hands its environment (here a dummy key) to `/bin/bash -c
// "<prefix> '<cmd>'"`, to the prefix script and to its `env -i`: all readable binaries, so all dumpable. With the
// execute-only shell of @wfbench/claude-cli mounted, CLAUDE_EXEC_ONLY_SHELL_ENV set and the prefix run under that shell
// with `exec -c` (cell-pipeline's renderShellPrefix), none of them is readable.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLAUDE_EXEC_ONLY_SHELL_ENV,
  CLAUDE_SESSION_ENV,
  SANDBOX_CLAUDE,
  SANDBOX_SHELL,
  SANDBOX_SHELL_PREFIX,
  buildClaudeArgv,
  buildClaudeEnv,
  resolveClaudeCli,
  stageExecOnlyBinary,
  stageExecOnlyShell,
} from "@wfbench/claude-cli";
import { parseScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { runSandboxed } from "../src/run-sandboxed.js";
import { SANDBOX_GATEWAY_SOCKET, type Mount } from "../src/schema.js";
import { makeTempDir, skipBwrap } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures", import.meta.url));
const DUMMY_KEY = "sk-ant-dummy-child-environ-0000-not-a-real-key";
const CLEAN_ENV = "HOME=/home/agent USER=agent LOGNAME=agent TMPDIR=/tmp PATH=/opt/claude:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb";
// The control: the wrapper as it was, under the readable /bin/bash and with `env -i` holding the CLI's environment.
const PLAIN_PREFIX = ["#!/bin/bash", "set -eu", 'if [ "$#" -ne 1 ]; then exit 64; fi', `exec /usr/bin/env -i ${CLEAN_ENV} /bin/bash -c "$1"`, ""].join("\n");
// The same wrapper as cell-pipeline's renderShellPrefix (this package may not import it).
const EXEC_ONLY_PREFIX = [`#!${SANDBOX_SHELL}`, "set -eu", 'if [ "$#" -ne 1 ]; then exit 64; fi', `exec -c /usr/bin/env ${CLEAN_ENV} /bin/bash -c "$1"`, ""].join("\n");

const root = makeTempDir("child-environ");
let server: ScriptedModelServer | null = null;
let claudePath = "";
let shellPath = "";
let plainPrefixPath = "";
let execOnlyPrefixPath = "";

beforeAll(async () => {
  if (skipBwrap) return;
  const cli = await resolveClaudeCli();
  claudePath = await stageExecOnlyBinary(cli.path, join(root.path, "claude"));
  shellPath = await stageExecOnlyShell(join(root.path, "bash"));
  plainPrefixPath = join(root.path, "shell-prefix-plain");
  writeFileSync(plainPrefixPath, PLAIN_PREFIX, { mode: 0o500 });
  execOnlyPrefixPath = join(root.path, "shell-prefix");
  writeFileSync(execOnlyPrefixPath, EXEC_ONLY_PREFIX, { mode: 0o500 });
  const parsed = parseScript(readFileSync(join(FIXTURE, "child-environ/script.yaml"), "utf8"), "script.yaml");
  if (!parsed.ok) throw new Error(`fixture script refused: ${JSON.stringify(parsed.error)}`);
  mkdirSync(join(root.path, "gateway"));
  server = await startScriptedModel({ script: parsed.value, listen: { socketPath: join(root.path, "gateway/model.sock") } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  root.cleanup();
});

/** One scripted session; returns the KEY=VALUE lines of its tool results. */
async function runProbe(name: string, execOnlyShell: boolean): Promise<Record<string, string>> {
  const workspace = join(root.path, name, "repo");
  const home = join(root.path, name, "home");
  cpSync(join(FIXTURE, "claude-session/repo"), workspace, { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  const env: Record<string, string> = {
    HOME: "/home/agent",
    USER: "agent",
    PATH: "/opt/claude:/usr/bin:/bin",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    ...buildClaudeEnv("/home/agent"),
    ...CLAUDE_SESSION_ENV,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    ANTHROPIC_BASE_URL: "http://localhost",
    ANTHROPIC_UNIX_SOCKET: SANDBOX_GATEWAY_SOCKET,
    ANTHROPIC_MODEL: "claude-sonnet-4-5",
    CLAUDE_CODE_MAX_RETRIES: "1",
    ...(execOnlyShell ? CLAUDE_EXEC_ONLY_SHELL_ENV : {}),
  };
  const mounts: Mount[] = [
    { source: claudePath, target: SANDBOX_CLAUDE, mode: "ro" },
    { source: execOnlyShell ? execOnlyPrefixPath : plainPrefixPath, target: SANDBOX_SHELL_PREFIX, mode: "ro" },
    ...(execOnlyShell ? [{ source: shellPath, target: SANDBOX_SHELL, mode: "ro" as const }] : []),
  ];
  const pinnedEnv = Object.fromEntries(Object.entries(env).filter(([key]) => key !== "ANTHROPIC_API_KEY"));
  const result = await runSandboxed(
    { workspace: { hostPath: workspace, mode: "rw", readOnlySubpaths: [] }, homeHostPath: home, mounts, env, network: { mode: "gateway-socket", hostSocketPath: join(root.path, "gateway/model.sock") } },
    buildClaudeArgv({ model: "claude-sonnet-4-5", effort: "high", disallowSkill: true, pinnedEnv }),
    { timeoutMs: 60_000, graceMs: 2_000, stdin: "CHILD-ENVIRON-PROBE-2d7b" },
  );
  const text = result.stdout.toString();
  expect(result.state, `${result.stderrTail}\n${text.slice(-2000)}`).toBe("exited");
  const report: Record<string, string> = {};
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const event = JSON.parse(line) as { type: string; message?: { content?: unknown } };
    if (event.type !== "user" || !Array.isArray(event.message?.content)) continue;
    for (const block of event.message.content as { type?: string; content?: unknown }[]) {
      if (block.type !== "tool_result") continue;
      const content = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      for (const match of content.matchAll(/^([A-Z_]+)=(.*)$/gmu)) report[match[1] as string] = (match[2] as string).trim();
    }
  }
  return report;
}

describe.skipIf(skipBwrap)("the environment of the shells the CLI starts (real CLI, scripted model)", () => {
  it("control: with the plain prefix, a watcher left by one Bash call reads the key from the next call's shells", async () => {
    const report = await runProbe("plain", false);
    expect(report["WATCHER"]).toBe("started");
    // Which of the three a watcher catches depends on scheduling; it always catches one.
    expect(report["LEAKED_TO"]?.split(" ").filter(Boolean).length).toBeGreaterThan(0);
    for (const comm of report["LEAKED_TO"]?.split(" ").filter(Boolean) ?? []) expect(["bash", "env", "shell-prefix"]).toContain(comm);
  }, 90_000);

  it("with the execute-only shell, the watcher reads it from no process, and the Bash tool's env is unchanged", async () => {
    const report = await runProbe("exec-only", true);
    expect(report["WATCHER"]).toBe("started");
    expect(report["SECOND"]).toBe("done");
    expect(report["LEAKED_TO"]).toBe("");
    // The control: the watcher did read the later calls' processes, the readable ones.
    expect(report["READABLE"]?.split(" ")).toContain("sleep");
    expect(report["ENV_NAMES"]).toBe("HOME LANG LC_ALL LOGNAME PATH PWD SHLVL TERM TMPDIR USER _");
  }, 90_000);
});
