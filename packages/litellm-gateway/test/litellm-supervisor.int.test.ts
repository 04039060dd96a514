import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { parse as parseYaml } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LiteLlmExitedError, LiteLlmReadyTimeoutError, LiteLlmSpawnError } from "../src/errors.js";
import { startGateway } from "../src/start-gateway.js";
import { buildLiteLlmConfig, startLiteLlm } from "../src/start-litellm.js";
import type { LiteLlmHandle } from "../src/start-litellm.js";
import { readUsageLog } from "../src/usage-log.js";
import { isAlive, waitForGone, waitForMatch } from "./support/processes.js";
import { buildStream } from "./support/sse.js";
import { startTestUpstream } from "./support/upstream.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const FAKE = join(FIXTURES, "fake-litellm", "litellm");
const OPENAI_KEY = "sk-openai-secret-for-tests-0123";
const HOST_ENV = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };

let dir: string;
const handles: LiteLlmHandle[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-llm-"));
});
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(overrides: Partial<Parameters<typeof startLiteLlm>[0]> = {}): Promise<LiteLlmHandle> {
  const handle = await startLiteLlm({ executable: FAKE, workDir: dir, models: ["gpt-4.1", "o3"], openAiApiKey: OPENAI_KEY, hostEnv: HOST_ENV, ...overrides });
  handles.push(handle);
  return handle;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("buildLiteLlmConfig", () => {
  it("routes each unique id to openai/<id> with the key from env, responses mode and 1800 s timeouts", () => {
    expect(buildLiteLlmConfig(["gpt-4.1", "openai/o3", "gpt-4.1"])).toEqual({
      model_list: [
        { model_name: "gpt-4.1", litellm_params: { model: "openai/gpt-4.1", api_key: "os.environ/OPENAI_API_KEY", timeout: 1800 }, model_info: { mode: "responses" } },
        { model_name: "openai/o3", litellm_params: { model: "openai/o3", api_key: "os.environ/OPENAI_API_KEY", timeout: 1800 }, model_info: { mode: "responses" } },
      ],
      litellm_settings: { request_timeout: 1800 },
      general_settings: { master_key: "os.environ/LITELLM_MASTER_KEY" },
    });
  });
});

describe("startLiteLlm", () => {
  it("starts the executable on loopback with a 0600 config and log, an allow-listed env and a minted sk- key", async () => {
    const handle = await start();
    expect(handle.baseUrl).toBe(`http://127.0.0.1:${handle.port}`);
    expect(handle.masterKey).toMatch(/^sk-[0-9a-f]{32}$/);
    expect((await stat(handle.configPath)).mode & 0o777).toBe(0o600);
    expect((await stat(handle.logPath)).mode & 0o777).toBe(0o600);
    const config: unknown = parseYaml(await readFile(handle.configPath, "utf8"));
    expect(config).toEqual(buildLiteLlmConfig(["gpt-4.1", "o3"]));
    expect(await readFile(handle.configPath, "utf8")).not.toContain(handle.masterKey);
    const envLine = await waitForMatch(handle.logPath, /env keys: (.*)/, 5000);
    expect(envLine[1]?.split(",").filter((k) => k !== "_" && k !== "PWD" && k !== "SHLVL")).toEqual([
      "HOME", "LANG", "LC_ALL", "LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_MASTER_KEY", "OPENAI_API_KEY", "PATH", "PYTHONUNBUFFERED",
    ]);
    const tail = await handle.readLogTail();
    expect(tail).toContain("master key in use: [REDACTED]");
    expect(tail).not.toContain(handle.masterKey);
  });

  it("proxies gateway traffic with the master key while the OpenAI key reaches only the provider", async () => {
    const upstream = await startTestUpstream();
    const handle = await start({ apiBase: upstream.url });
    const gateway = await startGateway({ listen: { host: "127.0.0.1", port: 0 }, upstream: handle.upstream, usageLogPath: join(dir, "usage.jsonl") });
    try {
      upstream.enqueue({ kind: "sse", body: buildStream({ model: "gpt-4.1", deltaUsage: { output_tokens: 33 } }) });
      const token = gateway.mintCellToken("cell-oa");
      const res = await request(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4.1", max_tokens: 5, stream: true, messages: [] }),
      });
      const text = await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain(handle.masterKey);
      expect(upstream.seen[0]?.headers["authorization"]).toBe(`Bearer ${OPENAI_KEY}`);
      await gateway.flush();
      const [row] = await readUsageLog(join(dir, "usage.jsonl"));
      expect(row).toMatchObject({ upstream: "litellm", cell_id: "cell-oa", usage: { output_tokens: 33 }, priced_model: "openai/gpt-4.1" });
      const logText = await readFile(join(dir, "usage.jsonl"), "utf8");
      expect(logText).not.toContain(OPENAI_KEY);
      expect(logText).not.toContain(handle.masterKey);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it("closes idempotently: the port closes and LiteLLM and its worker are gone", async () => {
    const handle = await start();
    const match = await waitForMatch(handle.logPath, /pid=(\d+) worker=(\d+)/, 5000);
    const pids = [Number(match[1]), Number(match[2]), handle.supervisorPid];
    expect(pids.every(isAlive)).toBe(true);
    await handle.close();
    await handle.close();
    expect(await waitForGone(pids, 5000)).toEqual([]);
    expect(await portOpen(handle.port)).toBe(false);
  });

  it("throws a ready timeout naming the override variable, with the log tail, and leaves nothing running", async () => {
    const error: unknown = await start({
      executable: join(FIXTURES, "fake-litellm", "litellm-never-ready"),
      // Long enough for the fixture to print its line even on a loaded 2-core box.
      readyTimeoutMs: 2000,
      readyTimeoutVariable: "GITNEXUS_BENCH_GATEWAY_READY_TIMEOUT_S",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiteLlmReadyTimeoutError);
    const message = (error as Error).message;
    expect(message).toContain("GITNEXUS_BENCH_GATEWAY_READY_TIMEOUT_S");
    expect(message).toContain("fake litellm loading");
    const pid = Number(/pid=(\d+)/.exec(message)?.[1]);
    expect(await waitForGone([pid], 5000)).toEqual([]);
  });

  it("throws LiteLlmExitedError with a redacted log tail when the executable dies first", async () => {
    const error: unknown = await start({ executable: join(FIXTURES, "fake-litellm", "litellm-crash") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiteLlmExitedError);
    expect((error as LiteLlmExitedError).exitCode).toBe(1);
    expect((error as Error).message).toContain("boom: cannot import proxy server");
    expect((error as Error).message).toContain("[REDACTED]");
    expect((error as Error).message).not.toContain(OPENAI_KEY);
  });

  it.each([Number.NaN, 0, -5, Number.POSITIVE_INFINITY])("refuses a readiness budget of %s ms before starting anything", async (readyTimeoutMs) => {
    const error: unknown = await start({ readyTimeoutMs, readyTimeoutVariable: "WFBENCH_GATEWAY_READY_TIMEOUT_S" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "GATEWAY_CONFIG_INVALID" });
    expect((error as Error).message).toContain("WFBENCH_GATEWAY_READY_TIMEOUT_S");
    await expect(stat(join(dir, "litellm.yaml"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses non-OpenAI ids and a missing executable", async () => {
    await expect(start({ models: ["claude-sonnet-4-5"] })).rejects.toBeInstanceOf(LiteLlmSpawnError);
    await expect(start({ executable: join(dir, "nope") })).rejects.toMatchObject({ code: "GATEWAY_LITELLM_SPAWN_FAILED" });
  });
});

describe("supervision through the liveness pipe", () => {
  async function spawnParent(executable: string, mode: "ready" | "startup") {
    const parent = spawn(
      process.execPath,
      ["--conditions=@wfbench/source", "--import", "tsx", join(FIXTURES, "supervisor-parent", "run.ts"), executable, dir, mode],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: parent.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      parent.once("exit", (code) => reject(new Error(`parent exited early (${String(code)})`)));
    });
    return { parent, report: JSON.parse(first) as { state: string; supervisorPid?: number; logPath?: string } };
  }

  it("kills LiteLLM's whole process group when the runner is SIGKILLed after readiness", async () => {
    const { parent, report } = await spawnParent(FAKE, "ready");
    expect(report.state).toBe("ready");
    const match = await waitForMatch(join(dir, "litellm.log"), /pid=(\d+) worker=(\d+)/, 5000);
    const pids = [Number(match[1]), Number(match[2]), report.supervisorPid ?? -1];
    expect(pids.every(isAlive)).toBe(true);
    parent.kill("SIGKILL");
    expect(await waitForGone(pids, 10_000)).toEqual([]);
  });

  it("kills LiteLLM when the runner is SIGKILLed during startup", async () => {
    const { parent, report } = await spawnParent(join(FIXTURES, "fake-litellm", "litellm-never-ready"), "startup");
    expect(report.state).toBe("starting");
    const match = await waitForMatch(join(dir, "litellm.log"), /loading pid=(\d+)/, 5000);
    const pid = Number(match[1]);
    expect(isAlive(pid)).toBe(true);
    parent.kill("SIGKILL");
    expect(await waitForGone([pid], 10_000)).toEqual([]);
  });
});
