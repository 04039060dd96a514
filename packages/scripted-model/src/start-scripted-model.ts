import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { unlink } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { MAX_CANONICAL_JSON_DEPTH, digestJson, isDigestError, sha256Hex } from "@wfbench/digest";
import { formatIssuePath } from "@wfbench/pycompat";
import { redactHeaders, redactText } from "@wfbench/redact";
import { ListenError, ScriptedModelError } from "./errors.js";
import {
  deriveStopReason,
  errorTypeForStatus,
  renderErrorBody,
  renderMessage,
  renderSseFrames,
  type ReplyPlan,
} from "./render-reply.js";
import { chatRequestAsMessages, renderChatChunks, renderChatCompletion, renderOpenAiErrorBody } from "./render-openai.js";
import { openRequestLog, type RequestLogEntry, type RequestOutcome } from "./request-log.js";
import { MessagesRequestSchema, type Fault, type Script, type Turn } from "./schema.js";
import { selectTurn, truncatePrefix } from "./select-turn.js";

/** Where the server listens: loopback TCP only, or a Unix socket path. */
export type ScriptedModelListen = { host: "127.0.0.1"; port: number } | { socketPath: string };

/** Options of {@link startScriptedModel}. */
export interface ScriptedModelOptions {
  /** An already parsed script (see parseScript / loadScript). */
  script: Script;
  listen: ScriptedModelListen;
  /** JSONL request log, appended and fsynced before each reply is sent. */
  requestLogPath?: string;
  /** A request whose headers (408) or body (400) stop arriving for this long is answered and closed (default 5000 ms). */
  stallTimeoutMs?: number;
  /**
   * When set, a request must present this key as `x-api-key` or `Authorization: Bearer`, else 401
   * authentication_error (stands in for a real endpoint's key check).
   */
  requireApiKey?: string;
  /** When set, a Messages request for any other model gets 404 not_found_error, as a real endpoint answers. */
  knownModels?: readonly string[];
  /**
   * `anthropic` (default): `POST /v1/messages`. `openai`: stands in for an OpenAI-compatible provider instead —
   * `POST /v1/chat/completions`, the key only as `Authorization: Bearer`, OpenAI replies, chunks and error bodies;
   * stream-shaped faults (stream_error, omit_content_block_stop) are served as normal replies there.
   */
  api?: "anthropic" | "openai";
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:PORT`, or `http://localhost` for a Unix socket. */
  readonly baseUrl: string;
  readonly socketPath: string | null;
  /** In-memory copy of the request log, in arrival order. */
  readonly requests: readonly RequestLogEntry[];
  /** Stops listening, cuts open connections (also delayed replies) and closes the log. */
  close(): Promise<void>;
}

// The CLI sends ~87 KB per request; anything near this bound is a bug or an attack, not a conversation.
const MAX_BODY_BYTES = 32 * 1024 * 1024;
// On loopback a live client never pauses this long inside one request body.
const DEFAULT_STALL_TIMEOUT_MS = 5_000;

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// Reads the whole body, refusing it when it grows past the bound or stops arriving: a client that sends less than it
// announced must get an answer, not a socket held open until Node's 300 s request timeout.
function readBody(request: IncomingMessage, idleMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (outcome !== null) {
        // Stop reading what is left: the reply closes the connection.
        request.pause();
        reject(outcome);
        return;
      }
      try {
        resolve(decodeBody(request, Buffer.concat(chunks)));
      } catch (error) {
        reject(error instanceof Error ? error : new BadRequest(400, String(error)));
      }
    };
    const expected = request.headers["content-length"];
    const timer = setTimeout(() => {
      const of = expected === undefined ? "" : ` of ${expected}`;
      finish(new BadRequest(400, `request body incomplete: received ${size}${of} bytes, then nothing for ${idleMs} ms`));
    }, idleMs);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        finish(new BadRequest(413, `request body exceeds ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
      timer.refresh();
    };
    const onEnd = (): void => finish(null);
    const onError = (error: Error): void => finish(new BadRequest(400, `request body unreadable: ${error.message}`));
    const onClose = (): void => finish(new BadRequest(400, `request body incomplete: the client went away after ${size} bytes`));
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

function decodeBody(request: IncomingMessage, raw: Buffer): Buffer {
  const encoding = (request.headers["content-encoding"] ?? "identity").toLowerCase();
  try {
    if (encoding === "identity") return raw;
    if (encoding === "gzip") return gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES });
    if (encoding === "deflate") return inflateSync(raw, { maxOutputLength: MAX_BODY_BYTES });
    if (encoding === "br") return brotliDecompressSync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch {
    throw new BadRequest(400, `request body is not valid ${encoding}`);
  }
  throw new BadRequest(415, `unsupported content-encoding ${truncatePrefix(encoding)}`);
}

/** The fault covering the n-th attempt (1-based) at a position: faults are consumed in order, `times` each. */
export function selectFault(faults: readonly Fault[], attempt: number): Fault | null {
  let covered = 0;
  for (const fault of faults) {
    covered += fault.times;
    if (attempt <= covered) return fault;
  }
  return null;
}

// A parsed body the digest refused: say which rule it broke and where, never echoing the body's values.
function describeUndigestibleBody(error: unknown): string {
  if (!isDigestError(error)) return `request body cannot be digested (${(error as Error).message})`;
  const at = truncatePrefix(formatIssuePath(error.path));
  if (error.code === "DIGEST_NON_FINITE_NUMBER") return `request body holds a number too large for a double (like 1e400), and Infinity is not a JSON number (at ${at})`;
  if (error.code === "DIGEST_TOO_DEEP") return `request body nests too deeply to digest (more than ${MAX_CANONICAL_JSON_DEPTH.toLocaleString("en-US")} levels, at ${at})`;
  return `request body cannot be digested (${error.code} at ${at})`;
}

function sendJson(response: ServerResponse, status: number, requestId: string, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "request-id": requestId,
    ...extra,
  });
  response.end(text);
}

function digestKey(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

// Digests compare in constant time whatever the presented length.
function presentsKey(request: IncomingMessage, key: string, bearerOnly: boolean): boolean {
  const expected = digestKey(key);
  const presented = [...(bearerOnly ? [] : (request.headersDistinct["x-api-key"] ?? [])), ...(request.headersDistinct["authorization"] ?? []).map((v) => /^Bearer\s+(\S+)\s*$/iu.exec(v)?.[1] ?? "")];
  return presented.some((value) => value !== "" && timingSafeEqual(digestKey(value), expected));
}

/** Starts the scripted model; trusts the parsed script, trusts nothing in requests, throws ListenError on bind failure. */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModelServer> {
  const { script, listen } = options;
  const openai = options.api === "openai";
  const route = openai ? "/v1/chat/completions" : "/v1/messages";
  const errorBody = (errorType: string, message: string, requestId: string): Record<string, unknown> =>
    openai ? renderOpenAiErrorBody(errorType, message) : renderErrorBody(errorType, message, requestId);
  const requests: RequestLogEntry[] = [];
  const attempts = new Map<string, number>();
  const closing = new AbortController();
  const instance = randomBytes(4).toString("hex");
  let seq = 0;

  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  // Node refuses a headers timeout above its 300 s request timeout; anything that long is no longer "stalled" anyway.
  if (!Number.isInteger(stallMs) || stallMs < 1 || stallMs > 300_000) {
    throw new ScriptedModelError(
      "SCRIPTED_MODEL_INVALID_OPTIONS",
      `stallTimeoutMs must be a whole number of milliseconds from 1 to 300000, got ${String(stallMs)}`,
    );
  }

  if ("host" in listen && listen.host !== "127.0.0.1") {
    throw new ListenError(`scripted-model listens on 127.0.0.1 or a Unix socket only, not ${String(listen.host)}`);
  }

  const log = options.requestLogPath === undefined ? null : await openRequestLog(options.requestLogPath);

  async function record(entry: RequestLogEntry): Promise<void> {
    requests.push(entry);
    await log?.append(entry);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    seq += 1;
    const requestId = `req_sm${instance}${String(seq).padStart(6, "0")}`;
    const target = request.url ?? "/";
    let url: URL | null = null;
    try {
      url = new URL(target, "http://scripted-model.invalid");
    } catch {
      // Node hands over absolute-form targets unparsed; one that is not a URL is the client's error, not ours.
    }
    const base = {
      time: new Date().toISOString(),
      seq,
      request_id: requestId,
      method: request.method ?? "",
      path: url === null ? truncatePrefix(target) : url.pathname,
      headers: redactHeaders(request.headers),
    };
    const empty = { trajectory: null, turn: null, attempt: null, model: null, stream: null, delay_ms: 0 };

    if (url === null) {
      const message = `request target ${JSON.stringify(truncatePrefix(target))} is not a valid URL`;
      await record({ ...base, ...empty, body_sha256: sha256Hex(""), body_bytes: 0, outcome: { kind: "bad_request", status: 400, message } });
      sendJson(response, 400, requestId, errorBody("invalid_request_error", `scripted-model: ${message}`, requestId), {
        connection: "close",
      });
      return;
    }

    let raw: Buffer;
    try {
      raw = await readBody(request, stallMs);
    } catch (error) {
      const status = error instanceof BadRequest ? error.status : 400;
      const message = error instanceof Error ? error.message : "unreadable request body";
      await record({ ...base, ...empty, body_sha256: sha256Hex(""), body_bytes: 0, outcome: { kind: "bad_request", status, message } });
      // The unread rest of the body would be parsed as the next request: close the connection after this reply.
      sendJson(response, status, requestId, errorBody(errorTypeForStatus(status), `scripted-model: ${message}`, requestId), {
        connection: "close",
      });
      return;
    }

    if (request.method !== "POST" || url.pathname !== route) {
      await record({ ...base, ...empty, body_sha256: sha256Hex(raw), body_bytes: raw.length, outcome: { kind: "not_found", status: 404 } });
      sendJson(
        response,
        404,
        requestId,
        errorBody(
          "not_found_error",
          `scripted-model serves only POST ${route}, not ${truncatePrefix(base.method)} ${truncatePrefix(url.pathname)}`,
          requestId,
        ),
      );
      return;
    }

    if (options.requireApiKey !== undefined && !presentsKey(request, options.requireApiKey, openai)) {
      await record({ ...base, ...empty, body_sha256: sha256Hex(raw), body_bytes: raw.length, outcome: { kind: "unauthorized", status: 401 } });
      sendJson(response, 401, requestId, errorBody("authentication_error", openai ? "scripted-model: invalid Authorization: Bearer key" : "scripted-model: invalid x-api-key", requestId));
      return;
    }

    let json: unknown;
    let digest: string;
    try {
      json = JSON.parse(raw.toString("utf8"));
      // JSON.parse takes any depth and turns 1e400 into Infinity; the digest refuses both (past MAX_CANONICAL_JSON_DEPTH,
      // which echoed tool inputs stay below: a script's nest at most MAX_TOOL_INPUT_DEPTH).
      digest = digestJson(json);
    } catch (error) {
      const message = json === undefined ? "request body is not JSON" : describeUndigestibleBody(error);
      await record({ ...base, ...empty, body_sha256: sha256Hex(raw), body_bytes: raw.length, outcome: { kind: "bad_request", status: 400, message } });
      sendJson(response, 400, requestId, errorBody("invalid_request_error", `scripted-model: ${message}`, requestId));
      return;
    }
    const bodyFacts = { body_sha256: digest, body_bytes: raw.length };

    const parsed = MessagesRequestSchema.safeParse(openai ? chatRequestAsMessages(json) : json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const message = `request body is not a Messages request (${first ? `${first.path.join(".")}: ${first.message}` : "invalid"})`;
      await record({ ...base, ...empty, ...bodyFacts, outcome: { kind: "bad_request", status: 400, message } });
      sendJson(response, 400, requestId, errorBody("invalid_request_error", `scripted-model: ${message}`, requestId));
      return;
    }
    const body = parsed.data;
    const stream = body.stream === true;
    const requestFacts = { ...bodyFacts, model: body.model, stream };

    if (options.knownModels !== undefined && !options.knownModels.includes(body.model)) {
      await record({ ...base, ...empty, ...requestFacts, outcome: { kind: "not_found", status: 404 } });
      sendJson(response, 404, requestId, errorBody("not_found_error", `model: ${truncatePrefix(body.model)}`, requestId));
      return;
    }

    const selection = selectTurn(script, body);
    if (!selection.ok) {
      if (selection.reason === "unmatched") {
        await record({
          ...base,
          ...empty,
          ...requestFacts,
          outcome: { kind: "unmatched", status: 400, prompt_prefix: redactText(selection.promptPrefix) },
        });
      } else {
        await record({
          ...base,
          ...empty,
          ...requestFacts,
          trajectory: selection.trajectory.name,
          turn: selection.position,
          outcome: { kind: "beyond_script", status: 400 },
        });
      }
      sendJson(response, 400, requestId, errorBody("invalid_request_error", selection.message, requestId));
      return;
    }

    const { trajectory, position, turn } = selection;
    // Attempts are counted per CLI session (when it says which) so parallel sessions do not eat each other's faults.
    const session = request.headers["x-claude-code-session-id"];
    const key = `${typeof session === "string" ? session : ""}\u0000${trajectory.name}\u0000${position}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const fault = selectFault(turn.faults, attempt);
    const delayMs = turn.delay_ms + (fault?.kind === "delay" ? fault.ms : 0);
    const turnFacts = { ...requestFacts, trajectory: trajectory.name, turn: position, attempt, delay_ms: delayMs };
    const plan: ReplyPlan = {
      messageId: `msg_sm${instance}${String(seq).padStart(6, "0")}`,
      model: turn.model ?? script.model ?? body.model,
      trajectoryName: trajectory.name,
      position,
      turn,
      // Stream-shaped faults cannot apply to a JSON reply: the non-streaming fallback is served normally.
      omitContentBlockStop: !openai && stream && fault?.kind === "omit_content_block_stop",
      streamError:
        !openai && stream && fault?.kind === "stream_error"
          ? { afterBlocks: fault.after_blocks, errorType: fault.error_type, message: fault.message }
          : null,
    };
    const outcome = decideOutcome(turn, fault, plan);
    await record({ ...base, ...turnFacts, outcome });

    if (delayMs > 0) await sleep(delayMs, undefined, { signal: closing.signal });

    if (fault?.kind === "http_error") {
      const errorType = fault.error_type ?? errorTypeForStatus(fault.status);
      const message = fault.message ?? `scripted-model: injected HTTP ${fault.status} (trajectory "${trajectory.name}", position ${position}, attempt ${attempt})`;
      const extra: Record<string, string> = fault.retry_after_s === undefined ? {} : { "retry-after": String(fault.retry_after_s) };
      sendJson(response, fault.status, requestId, errorBody(errorType, message, requestId), extra);
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    if (!stream) {
      sendJson(response, 200, requestId, openai ? renderChatCompletion(plan, created) : renderMessage(plan));
      return;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": requestId,
    });
    const includeUsage = openai && (json as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
    for (const frame of openai ? renderChatChunks(plan, created, includeUsage) : renderSseFrames(plan)) response.write(frame);
    response.end();
  }

  // Node answers stalled headers with 408 itself, but only after 60 s, checked every 30 s: far too slow for tests.
  const server: Server = createServer({ headersTimeout: stallMs, connectionsCheckingInterval: Math.min(1_000, stallMs) }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (closing.signal.aborted) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(response, 500, "req_sm_internal", renderErrorBody("api_error", `scripted-model internal error: ${truncatePrefix(message)}`, "req_sm_internal"));
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      const where = "socketPath" in listen ? listen.socketPath : `127.0.0.1:${listen.port}`;
      reject(new ListenError(`scripted-model cannot listen on ${where}: ${error.message}`, { cause: error }));
    };
    server.once("error", onError);
    const ready = (): void => {
      server.off("error", onError);
      resolve();
    };
    if ("socketPath" in listen) server.listen(listen.socketPath, ready);
    else server.listen(listen.port, "127.0.0.1", ready);
  }).catch(async (error: unknown) => {
    await log?.close();
    throw error;
  });

  const socketPath = "socketPath" in listen ? listen.socketPath : null;
  const baseUrl = socketPath === null ? `http://127.0.0.1:${(server.address() as AddressInfo).port}` : "http://localhost";
  let closed: Promise<void> | null = null;

  return {
    baseUrl,
    socketPath,
    requests,
    close(): Promise<void> {
      closed ??= (async () => {
        closing.abort();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        await log?.close();
        if (socketPath !== null) await unlink(socketPath).catch(() => undefined);
      })();
      return closed;
    },
  };
}

function decideOutcome(turn: Turn, fault: Fault | null, plan: ReplyPlan): RequestOutcome {
  if (fault?.kind === "http_error") {
    return { kind: "http_error", status: fault.status, error_type: fault.error_type ?? errorTypeForStatus(fault.status) };
  }
  if (plan.streamError !== null) {
    return { kind: "stream_error", status: 200, error_type: plan.streamError.errorType, after_blocks: plan.streamError.afterBlocks };
  }
  if (plan.omitContentBlockStop) return { kind: "omit_content_block_stop", status: 200, stop_reason: deriveStopReason(turn) };
  return { kind: "reply", status: 200, stop_reason: deriveStopReason(turn) };
}
