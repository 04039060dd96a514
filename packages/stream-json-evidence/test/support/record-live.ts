// Records a real stream-json session from the pinned Claude Code CLI against a tiny scripted Anthropic endpoint.
// The CLI runs inside bwrap with its own network namespace (only `lo`) and reaches the script over a bind-mounted
// Unix socket (ANTHROPIC_UNIX_SOCKET), so nothing can leave the machine.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveClaudeCli } from "@wfbench/claude-cli";

export const SKILL_NAME = "review";
export const FAKE_API_KEY = "sk-ant-api03-wfbench-recording-key-0000";
const MODEL = "claude-sonnet-4-5-20250929";

/** Path of the pinned native CLI binary (proven by `@wfbench/claude-cli`), or null when it is not installed. */
export async function findClaudeBinary(): Promise<string | null> {
  return resolveClaudeCli().then(
    (cli) => cli.path,
    () => null,
  );
}

export const hasBwrap = (): boolean => existsSync("/usr/bin/bwrap");

/** A scripted content block. */
export type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
/** What the script answers to one request: a message (streamed unless the CLI asked for stream:false) or an HTTP error. */
export type Reply = { blocks: Block[]; stop: string; dropBlockStop?: boolean } | { status: number; errorType: string; message: string };
/** The scripted model: decides a reply from the request body and the 1-based request number. */
export type Script = (body: RequestBody, request: number) => Reply;
/** The part of a /v1/messages body the scripts look at. */
export interface RequestBody {
  readonly stream?: boolean;
  readonly messages?: { role?: string; content?: unknown }[];
}

/** Number of tool_result blocks in the conversation so far (how far a Skill → Bash → text script has got). */
export function countToolResults(body: RequestBody): number {
  let count = 0;
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type?: string }[]) if (block.type === "tool_result") count += 1;
  }
  return count;
}

/** The default script: Skill → Bash → final text. */
export const skillBashText: Script = (body) => {
  const toolResults = countToolResults(body);
  if (toolResults === 0) return { blocks: [{ type: "text", text: "Using the skill." }, { type: "tool_use", id: "toolu_01RecSkill000000000000001", name: "Skill", input: { skill: SKILL_NAME } }], stop: "tool_use" };
  if (toolResults === 1) return { blocks: [{ type: "tool_use", id: "toolu_01RecBash0000000000000001", name: "Bash", input: { command: "echo hello-from-bash", description: "Say hello" } }], stop: "tool_use" };
  return { blocks: [{ type: "text", text: "Done." }], stop: "end_turn" };
};

function sendSse(res: ServerResponse, id: string, blocks: Block[], stop: string, dropBlockStop: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "request-id": `req_${id}` });
  const frame = (type: string, data: object): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  frame("message_start", { message: { id, type: "message", role: "assistant", model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 120, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      frame("content_block_start", { index, content_block: { type: "text", text: "" } });
      frame("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      frame("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    if (!dropBlockStop) frame("content_block_stop", { index });
  });
  frame("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { input_tokens: 120, output_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  frame("message_stop", {});
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The recorded session: stdout bytes, exit code, stderr tail and how many model requests were made. */
export interface LiveRecording {
  readonly stdout: Uint8Array;
  readonly exitCode: number | null;
  readonly stderr: string;
  readonly requests: number;
}

/** One live session to record. */
export interface LiveSessionPlan {
  readonly script?: Script;
  readonly prompt?: string;
  readonly extraArgs?: readonly string[];
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly maxTurns?: number;
  /** `--allowedTools` value (default: echo-only Bash, Skill, Read, Task). */
  readonly allowedTools?: string;
  /** Extra files under the project directory (relative path → content). */
  readonly files?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** Runs one scripted session through the real CLI (Skill → Bash → text by default) and returns what the parent captured. */
export async function recordLiveSession(claude: string, plan: LiveSessionPlan = {}): Promise<LiveRecording> {
  const script = plan.script ?? skillBashText;
  const timeoutMs = plan.timeoutMs ?? 90_000;
  const root = await mkdtemp(join(tmpdir(), "evidence-live-"));
  const project = join(root, "work", "project");
  await mkdir(join(project, ".claude", "skills", SKILL_NAME), { recursive: true });
  await mkdir(join(root, "work", "config"), { recursive: true });
  await mkdir(join(root, "work", "home"), { recursive: true });
  await mkdir(join(root, "sock"), { recursive: true });
  await writeFile(join(project, ".claude", "skills", SKILL_NAME, "SKILL.md"), `---\nname: ${SKILL_NAME}\ndescription: Review the change and say hello.\n---\n\n# Review\nRun \`echo hello-from-bash\`, then answer "Done."\n`);
  for (const [relative, content] of Object.entries(plan.files ?? {})) {
    await mkdir(dirname(join(project, relative)), { recursive: true });
    await writeFile(join(project, relative), content);
  }
  let requests = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method !== "POST" || !(req.url ?? "").startsWith("/v1/messages") || (req.url ?? "").includes("count_tokens")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not scripted" } }));
        return;
      }
      requests += 1;
      const body = JSON.parse(raw) as RequestBody;
      const reply = script(body, requests);
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", "request-id": `req_err_${requests}` });
        res.end(JSON.stringify({ type: "error", error: { type: reply.errorType, message: reply.message } }));
        return;
      }
      const id = `msg_01Rec${String(requests).padStart(18, "0")}`;
      if (body.stream === false) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id, type: "message", role: "assistant", model: MODEL, content: reply.blocks, stop_reason: reply.stop, stop_sequence: null, usage: { input_tokens: 120, output_tokens: 17 } }));
        return;
      }
      sendSse(res, id, reply.blocks, reply.stop, reply.dropBlockStop === true);
    })();
  });
  const socket = join(root, "sock", "api.sock");
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const env = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: "/work/home",
    CLAUDE_CONFIG_DIR: "/work/config",
    ANTHROPIC_API_KEY: FAKE_API_KEY,
    ANTHROPIC_BASE_URL: "http://localhost",
    ANTHROPIC_UNIX_SOCKET: "/sock/api.sock",
    ANTHROPIC_MODEL: MODEL,
    ANTHROPIC_DEFAULT_OPUS_MODEL: MODEL,
    ANTHROPIC_DEFAULT_SONNET_MODEL: MODEL,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: MODEL,
    ANTHROPIC_SMALL_FAST_MODEL: MODEL,
    CLAUDE_CODE_SUBAGENT_MODEL: MODEL,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
    CLAUDE_CODE_MAX_RETRIES: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...plan.extraEnv,
  };
  const argv = [
    "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
    "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
    "--ro-bind", claude, "/opt/claude", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--bind", join(root, "work"), "/work", "--bind", join(root, "sock"), "/sock", "--chdir", "/work/project", "--clearenv",
    ...Object.entries(env).flatMap(([key, value]) => ["--setenv", key, value]),
    "/opt/claude", "-p", plan.prompt ?? `Use the ${SKILL_NAME} skill, then stop.`, "--output-format", "stream-json", "--verbose", "--model", MODEL,
    "--permission-mode", "dontAsk", "--tools", "Bash,Read,Skill,Task", "--allowedTools", plan.allowedTools ?? "Bash(echo:*),Skill,Read,Task", "--setting-sources", "project",
    "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}', "--max-turns", String(plan.maxTurns ?? 6), "--no-session-persistence",
    ...(plan.extraArgs ?? []),
  ];
  try {
    return await new Promise<LiveRecording>((resolve, reject) => {
      const child = spawn("/usr/bin/bwrap", argv, { stdio: ["ignore", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ stdout: new Uint8Array(Buffer.concat(out)), exitCode: code, stderr: Buffer.concat(err).toString("utf8").slice(-4000), requests });
      });
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }
}
