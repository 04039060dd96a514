// The real Claude Code CLI, inside the sandbox, completing a scripted Skill -> Bash session whose only way to the
// model is the granted gateway Unix socket (ANTHROPIC_UNIX_SOCKET); the sandbox itself has no network but lo.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { resolveClaudeCli } from "@wfbench/claude-cli";
import { parseScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { runSandboxed } from "../src/run-sandboxed.js";
import { SANDBOX_GATEWAY_SOCKET } from "../src/schema.js";
import { makeTempDir, skipBwrap } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/claude-session", import.meta.url));
const MARKER = "WFBENCH-SANDBOX-PROBE-5c1e";
const DUMMY_KEY = "sk-ant-dummy-sandbox-0000-not-a-real-key";

interface StreamEvent {
  type: string;
  subtype?: string;
  skills?: string[];
  is_error?: boolean;
  message?: { content?: Array<Record<string, unknown>> };
}

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(skipBwrap)("Claude Code CLI inside the sandbox (real binary, scripted model over the gateway socket)", () => {
  it("completes Skill -> Bash as uid 1000 with only lo, reaching the model through /run/gateway.sock", async () => {
    const cli = await resolveClaudeCli();
    const root = makeTempDir("claude");
    cleanups.push(root.cleanup);
    const workspace = join(root.path, "repo");
    const home = join(root.path, "home");
    const gateway = join(root.path, "gateway");
    cpSync(join(FIXTURE, "repo"), workspace, { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(gateway);
    execFileSync("/usr/bin/git", ["init", "-q", "."], { cwd: workspace, env: {} });

    const parsed = parseScript(readFileSync(join(FIXTURE, "script.yaml"), "utf8"), "script.yaml");
    if (!parsed.ok) throw new Error(`fixture script refused: ${JSON.stringify(parsed.error)}`);
    const socketPath = join(gateway, "model.sock");
    const server: ScriptedModelServer = await startScriptedModel({ script: parsed.value, listen: { socketPath } });
    cleanups.push(() => server.close());

    const argv = [
      "/opt/claude/claude", "-p", `Use the sandbox-probe skill. ${MARKER}`,
      "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5",
      "--setting-sources", "project", "--tools", "Bash,Read,Edit,Write,Glob,Grep,Skill",
      "--permission-mode", "bypassPermissions", "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}',
      "--max-turns", "6", "--no-session-persistence",
    ];
    const result = await runSandboxed(
      {
        // As in a real model session: the evaluated skill is read-only, the rest of the clone writable.
        workspace: { hostPath: workspace, mode: "rw", readOnlySubpaths: [".claude/skills/sandbox-probe"] },
        homeHostPath: home,
        mounts: [{ source: cli.path, target: "/opt/claude/claude", mode: "ro" }],
        network: { mode: "gateway-socket", hostSocketPath: socketPath },
        env: {
          HOME: "/home/agent",
          USER: "agent",
          PATH: "/opt/claude:/usr/bin:/bin",
          TMPDIR: "/tmp",
          LANG: "C.UTF-8",
          CLAUDE_CONFIG_DIR: "/home/agent/.claude",
          ANTHROPIC_API_KEY: DUMMY_KEY,
          ANTHROPIC_BASE_URL: server.baseUrl,
          ANTHROPIC_UNIX_SOCKET: SANDBOX_GATEWAY_SOCKET,
          CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
          CLAUDE_CODE_MAX_RETRIES: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_ERROR_REPORTING: "1",
        },
      },
      argv,
      { timeoutMs: 45_000, graceMs: 2_000 },
    );
    const context = `state ${result.state} exit ${String(result.exitCode)}\nstderr: ${result.stderrTail.slice(-2000)}\nstdout: ${result.stdout.toString().slice(-3000)}`;
    expect(result.state, context).toBe("exited");
    expect(result.exitCode, context).toBe(0);

    const events = result.stdout
      .toString()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as StreamEvent);
    expect(events.find((e) => e.type === "system" && e.subtype === "init")?.skills, context).toContain("sandbox-probe");
    const uses = events.flatMap((e) => (e.type === "assistant" ? (e.message?.content ?? []) : [])).filter((b) => b["type"] === "tool_use");
    expect(uses.map((b) => b["name"])).toEqual(["Skill", "Bash"]);
    const final = events.filter((e) => e.type === "result");
    expect(final).toHaveLength(1);
    expect(final[0]?.is_error).toBe(false);

    // The Bash tool ran inside the sandbox: uid 1000, only lo, host /root hidden; it wrote into the host workspace.
    const probe = readFileSync(join(workspace, "probe.txt"), "utf8").split("\n");
    expect(probe[0]).toBe("1000");
    expect(probe[1]?.trim()).toBe("lo");
    expect(probe[2]).toBe("root-hidden");
    // Every model request arrived over the Unix socket, one per scripted turn.
    expect(server.requests.length).toBe(3);
    expect(existsSync(socketPath)).toBe(true);
  });
});
