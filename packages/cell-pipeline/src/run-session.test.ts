import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stageExecOnlyBinary } from "@wfbench/claude-cli";
import type { SandboxPolicyInput } from "@wfbench/sandbox-bwrap";
import type { SessionSpec } from "./arms.js";
import { runSession, type SessionContext, type SessionSandbox } from "./run-session.js";

const dir = mkdtempSync(join(tmpdir(), "cell-run-session-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec: SessionSpec = { phase: "work", prompt: "p", expectedSkill: "demo-work", disallowSkill: false, allowEdit: true };

function context(claudePath: string, sandbox: SessionSandbox): SessionContext {
  return {
    workspace: dir,
    homeHostPath: dir,
    tmpHostPath: dir,
    readOnlySkillRoots: [],
    claudePath,
    shellPrefixPath: join(dir, "shell-prefix"),
    // Any execute-only file passes the staging check; the stub sandboxes never run it.
    shellPath: claudePath,
    settingsStubPath: join(dir, "settings-stub.json"),
    gatewaySocketPath: join(dir, "gateway.sock"),
    token: "wfb-cell-token-run-session",
    model: "m-1",
    effort: "high",
    timeoutMs: 1000,
    outDir: dir,
    transcriptPrefix: "t",
    contaminationSkill: null,
    secrets: [],
    sandbox,
  };
}

describe("runSession", () => {
  it("refuses a CLI binary that is not staged execute-only as a cell error, before any sandbox starts", async () => {
    const readable = join(dir, "claude-readable");
    writeFileSync(readable, "#!/bin/true\n");
    chmodSync(readable, 0o755);
    let started = false;
    const sandbox: SessionSandbox = () => {
      started = true;
      return Promise.reject(new Error("must not start"));
    };
    const refusal = await runSession(spec, context(readable, sandbox)).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ name: "CellPipelineError", code: "CELL_PIPELINE_INPUT_INVALID", message: expect.stringMatching(/mode 755.*execute-only/u) });
    expect((refusal as Error).cause).toMatchObject({ name: "ClaudeCliError", code: "CLAUDE_CLI_NOT_EXEC_ONLY" });
    expect(started).toBe(false);
  });
});

describe("runSession's settings pins", () => {
  const TOKEN = "wfb-cell-token-pins-0d4c";
  async function capture(workspace: string): Promise<{ policy: SandboxPolicyInput; argv: readonly string[] }> {
    const claude = await stageExecOnlyBinary("/bin/true", join(mkdtempSync(join(dir, "bin-")), "claude"));
    let seen: { policy: SandboxPolicyInput; argv: readonly string[] } | null = null;
    const sandbox: SessionSandbox = (policy, argv) => {
      seen = { policy: policy as SandboxPolicyInput, argv };
      return Promise.reject(new Error("captured"));
    };
    await runSession(spec, { ...context(claude, sandbox), workspace, token: TOKEN, secrets: [TOKEN], readOnlySkillRoots: [".claude/skills/demo-work"] }).catch(() => undefined);
    if (seen === null) throw new Error("the sandbox was never asked");
    return seen;
  }
  function workspaceWithStubs(): string {
    const ws = mkdtempSync(join(dir, "ws-"));
    mkdirSync(join(ws, ".claude/skills/demo-work"), { recursive: true });
    for (const name of ["settings.json", "settings.local.json"]) writeFileSync(join(ws, ".claude", name), "{}\n");
    return ws;
  }

  it("covers both settings files with the harness's read-only stub and makes .claude a mount point", async () => {
    const { policy } = await capture(workspaceWithStubs());
    const stubs = (policy.mounts ?? []).filter((mount) => mount.target.startsWith("/workspace/.claude/"));
    expect(stubs).toEqual([
      { source: join(dir, "settings-stub.json"), target: "/workspace/.claude/settings.json", mode: "ro" },
      { source: join(dir, "settings-stub.json"), target: "/workspace/.claude/settings.local.json", mode: "ro" },
    ]);
    expect(policy.workspace?.readOnlySubpaths).toEqual([".claude/skills/demo-work", ".claude/settings.json", ".claude/settings.local.json"]);
  });

  it("pins the session's env in --settings without the token, which stays in the process env only", async () => {
    const { policy, argv } = await capture(workspaceWithStubs());
    const settings = JSON.parse(argv[argv.indexOf("--settings") + 1] ?? "{}") as { env: Record<string, string>; apiKeyHelper: string };
    expect(policy.env?.["ANTHROPIC_API_KEY"]).toBe(TOKEN);
    expect(argv.join(" ")).not.toContain(TOKEN);
    expect(settings.env).toMatchObject({ CLAUDE_CODE_SHELL_PREFIX: "/opt/claude/shell-prefix", ANTHROPIC_UNIX_SOCKET: "/run/gateway.sock", HOME: "/home/agent" });
    expect(settings.env["ANTHROPIC_API_KEY"]).toBeUndefined();
    expect(settings.apiKeyHelper).toBe("");
  });

  it("refuses a workspace whose settings file is missing or linked, rather than let bwrap create it in the diff", async () => {
    const missing = workspaceWithStubs();
    rmSync(join(missing, ".claude/settings.local.json"));
    const linked = workspaceWithStubs();
    rmSync(join(linked, ".claude/settings.json"));
    symlinkSync("/etc/passwd", join(linked, ".claude/settings.json"));
    for (const ws of [missing, linked]) {
      const claude = await stageExecOnlyBinary("/bin/true", join(mkdtempSync(join(dir, "bin-")), "claude"));
      const refusal = await runSession(spec, { ...context(claude, () => Promise.reject(new Error("must not start"))), workspace: ws }).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "CELL_PIPELINE_WORKSPACE_FAILED", message: expect.stringMatching(/settings(?:\.local)?\.json is missing or not a regular file/u) });
    }
  });
});

describe("runSession's session id", () => {
  const SESSION = "2f0c9a1e-5b7d-4c3a-9e8f-0a1b2c3d4e5f";
  async function recordOf(stdout: string): Promise<Awaited<ReturnType<typeof runSession>>> {
    const claude = await stageExecOnlyBinary("/bin/true", join(mkdtempSync(join(dir, "bin-")), "claude"));
    const ws = mkdtempSync(join(dir, "ws-"));
    mkdirSync(join(ws, ".claude"), { recursive: true });
    for (const name of ["settings.json", "settings.local.json"]) writeFileSync(join(ws, ".claude", name), "{}\n");
    const outDir = mkdtempSync(join(dir, "out-"));
    const sandbox: SessionSandbox = () =>
      Promise.resolve({ backend: "bwrap", state: "exited", ok: false, exitCode: 1, signal: null, stdout: Buffer.from(stdout), stdoutOverflow: false, stderrTail: "", durationMs: 5, setupError: null });
    return runSession(spec, { ...context(claude, sandbox), workspace: ws, outDir, transcriptPrefix: "task-arm-run0" });
  }
  const init = JSON.stringify({ type: "system", subtype: "init", session_id: SESSION });

  it("is the id the salvaged transcript was named after when the stream was refused", async () => {
    // A line that is not JSON: the parser refuses the stream and the transcript is a salvage named by the init's id.
    const record = await recordOf(`${init}\nnot json {\n`);
    expect(record.errorKind).toBe("session-error");
    expect(record.artifact?.path).toBe(`transcripts/task-arm-run0-${SESSION}.jsonl`);
    expect(record.sessionId).toBe(SESSION);
  });

  it("stays null when the salvage found none either (the transcript is named nosession-<phase>)", async () => {
    const record = await recordOf(`not json {\n${JSON.stringify({ type: "system", subtype: "init", session_id: "../../etc" })}\n`);
    expect(record.artifact?.path).toBe("transcripts/task-arm-run0-nosession-work.jsonl");
    expect(record.sessionId).toBeNull();
  });
});
