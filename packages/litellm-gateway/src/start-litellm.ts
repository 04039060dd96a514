import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import { chmod, open as openFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { redactText } from "@wfbench/redact";
import { request as undiciRequest } from "undici";
import { stringify as stringifyYaml } from "yaml";
import { GatewayConfigError, LiteLlmExitedError, LiteLlmReadyTimeoutError, LiteLlmSpawnError } from "./errors.js";
import { DEFAULT_READY_TIMEOUT_S, GATEWAY_ENV_NAMES, GATEWAY_REQUEST_TIMEOUT_S } from "./read-gateway-env.js";
import { isOpenAiModel, toLiteLlmModel } from "./route-model.js";
import type { UpstreamConfig } from "./schema.js";
import { SUPERVISOR_SCRIPT } from "./supervisor-script.js";

/** Options of the LiteLLM supervisor. */
export interface StartLiteLlmOptions {
  /** The `litellm` console script (or a compatible executable); never `python -m litellm`. */
  readonly executable: string;
  /** Private 0700 directory owned by the caller: config, log and LiteLLM's HOME go here. */
  readonly workDir: string;
  /** OpenAI model ids served (each must satisfy isOpenAiModel). */
  readonly models: readonly string[];
  /** The real OpenAI key; handed to LiteLLM through its env only. */
  readonly openAiApiKey: string;
  /** PATH, LANG and LC_ALL for LiteLLM (packages never read process.env; the app passes them in). */
  readonly hostEnv: { readonly PATH: string; readonly LANG?: string; readonly LC_ALL?: string };
  /** Optional OpenAI-compatible api_base for every model (a private endpoint, or a test upstream). */
  readonly apiBase?: string;
  /** Readiness budget (default 180 s); the timeout message names `readyTimeoutVariable`. */
  readonly readyTimeoutMs?: number;
  readonly readyTimeoutVariable?: string;
  /** Node binary that runs the supervisor (default: the current one). */
  readonly nodeExecutable?: string;
  /** Grace between SIGTERM and SIGKILL of LiteLLM's group (default 5 s). */
  readonly terminateGraceMs?: number;
}

/** A live, supervised LiteLLM proxy on 127.0.0.1. */
export interface LiteLlmHandle {
  readonly baseUrl: string;
  readonly port: number;
  /** Minted `sk-…` master key; give it to startGateway (via `upstream`), never to a sandbox. */
  readonly masterKey: string;
  readonly configPath: string;
  readonly logPath: string;
  /** Pid of the supervisor (LiteLLM runs in its own process group below it). */
  readonly supervisorPid: number;
  /** Upstream config for startGateway. */
  readonly upstream: UpstreamConfig;
  /** Redacted last `maxBytes` of the log. */
  readLogTail(maxBytes?: number): Promise<string>;
  /** Closes the liveness pipe and waits up to 15 s for the supervisor; SIGKILLs it after that. Idempotent. */
  close(): Promise<void>;
}

/** Builds the LiteLLM config object: one entry per unique id, routed to `openai/<id>` with the key from env. */
export function buildLiteLlmConfig(models: readonly string[], apiBase?: string): Record<string, unknown> {
  const unique = [...new Set(models)];
  return {
    model_list: unique.map((name) => ({
      model_name: name,
      litellm_params: {
        model: toLiteLlmModel(name),
        api_key: "os.environ/OPENAI_API_KEY",
        timeout: GATEWAY_REQUEST_TIMEOUT_S,
        ...(apiBase === undefined ? {} : { api_base: apiBase }),
      },
      // Tool use with reasoning needs the Responses API.
      model_info: { mode: "responses" },
    })),
    litellm_settings: { request_timeout: GATEWAY_REQUEST_TIMEOUT_S },
    general_settings: { master_key: "os.environ/LITELLM_MASTER_KEY" },
  };
}

async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function readTail(path: string, maxBytes: number): Promise<string> {
  const handle = await openFile(path, "r").catch(() => null);
  if (handle === null) return "";
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } finally {
    await handle.close();
  }
}

async function isLive(baseUrl: string): Promise<boolean> {
  try {
    const res = await undiciRequest(`${baseUrl}/health/liveliness`, { method: "GET", signal: AbortSignal.timeout(1000) });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Writes a 0600 LiteLLM config, starts the executable under a liveness-pipe supervisor bound to 127.0.0.1 on a free
 * port with an allow-listed env (HOME=workDir, PATH, LANG, LC_ALL, PYTHONUNBUFFERED, LITELLM_LOCAL_MODEL_COST_MAP,
 * OPENAI_API_KEY, LITELLM_MASTER_KEY) and its output in a 0600 log file, then polls `/health/liveliness` every 100 ms.
 * Refuses non-OpenAI ids and a non-finite or non-positive readiness budget. @throws {GatewayConfigError}
 * @throws {LiteLlmSpawnError} @throws {LiteLlmExitedError} @throws {LiteLlmReadyTimeoutError}
 */
export async function startLiteLlm(options: StartLiteLlmOptions): Promise<LiteLlmHandle> {
  const nonOpenAi = options.models.filter((m) => !isOpenAiModel(m));
  if (options.models.length === 0 || nonOpenAi.length > 0) {
    throw new LiteLlmSpawnError(`LiteLLM serves OpenAI ids only; refused: ${nonOpenAi.join(", ") || "(no models)"}`);
  }
  const budgetMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_S * 1000;
  const variable = options.readyTimeoutVariable ?? GATEWAY_ENV_NAMES.readyTimeoutS[0];
  // A NaN deadline never passes: the readiness loop would poll forever.
  if (!Number.isFinite(budgetMs) || budgetMs <= 0) {
    throw new GatewayConfigError(`readiness budget must be a finite number of ms > 0 (set ${variable} in seconds), got ${String(budgetMs)}`);
  }
  const executableStat = await stat(options.executable).catch(() => null);
  if (executableStat === null || !executableStat.isFile()) {
    throw new LiteLlmSpawnError(`litellm executable ${options.executable} does not exist`);
  }
  const masterKey = `sk-${randomBytes(16).toString("hex")}`;
  const secrets = [masterKey, options.openAiApiKey];
  const configPath = join(options.workDir, "litellm.yaml");
  const logPath = join(options.workDir, "litellm.log");
  try {
    await writeFile(configPath, stringifyYaml(buildLiteLlmConfig(options.models, options.apiBase)), { mode: 0o600 });
    await chmod(configPath, 0o600);
  } catch (cause) {
    throw new LiteLlmSpawnError(`cannot write the LiteLLM config in ${options.workDir}`, { cause });
  }
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    HOME: options.workDir,
    PATH: options.hostEnv.PATH,
    LANG: options.hostEnv.LANG ?? "C.UTF-8",
    LC_ALL: options.hostEnv.LC_ALL ?? "C.UTF-8",
    PYTHONUNBUFFERED: "1",
    // Offline: price from the cost map bundled with the pinned release, never a fresh download.
    LITELLM_LOCAL_MODEL_COST_MAP: "True",
    OPENAI_API_KEY: options.openAiApiKey,
    LITELLM_MASTER_KEY: masterKey,
  };
  const logFd = openSync(logPath, "a", 0o600);
  await chmod(logPath, 0o600);
  let child: ChildProcess;
  try {
    child = spawn(
      options.nodeExecutable ?? process.execPath,
      [
        "-e",
        SUPERVISOR_SCRIPT,
        "--",
        String(options.terminateGraceMs ?? 5000),
        options.executable,
        "--config",
        configPath,
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
      ],
      // A file, never a pipe: nothing drains a pipe after startup and a full one would hang every request.
      { cwd: options.workDir, env, stdio: ["pipe", logFd, logFd], detached: true },
    );
  } catch (cause) {
    throw new LiteLlmSpawnError(`cannot start the LiteLLM supervisor: ${String(cause)}`, { cause });
  } finally {
    closeSync(logFd);
  }
  const spawnError = await new Promise<Error | null>((resolve) => {
    child.once("spawn", () => resolve(null));
    child.once("error", (error) => resolve(error));
  });
  if (spawnError !== null || child.pid === undefined) {
    throw new LiteLlmSpawnError(`cannot start the LiteLLM supervisor: ${String(spawnError)}`, { cause: spawnError });
  }
  const supervisorPid = child.pid;
  // The parent must not stay alive just because the pipe is open.
  child.stdin?.on("error", () => undefined);
  child.unref();

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      child.stdin?.end();
      if (!(await waitForExit(child, 15_000))) {
        try {
          process.kill(-supervisorPid, "SIGKILL");
        } catch {
          // already gone
        }
        await waitForExit(child, 2_000);
      }
    })();
    return closing;
  };
  const readLogTail = async (maxBytes = 4000): Promise<string> => redactText(await readTail(logPath, maxBytes), secrets);

  const deadline = performance.now() + budgetMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const code = child.exitCode;
      throw new LiteLlmExitedError(
        `LiteLLM exited (code ${String(code)}) before it was live; log tail:\n${await readLogTail()}`,
        code,
      );
    }
    if (await isLive(baseUrl)) break;
    if (performance.now() >= deadline) {
      await close();
      throw new LiteLlmReadyTimeoutError(
        `LiteLLM was not live at ${baseUrl}/health/liveliness within ${budgetMs / 1000} s; raise ${variable} (seconds) if a cold start is slow. Log tail:\n${await readLogTail()}`,
        budgetMs,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    baseUrl,
    port,
    masterKey,
    configPath,
    logPath,
    supervisorPid,
    upstream: { kind: "litellm", baseUrl, apiKey: masterKey, authScheme: "bearer" },
    readLogTail,
    close,
  };
}
