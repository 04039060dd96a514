import { randomUUID } from "node:crypto";
import { lstat, mkdtemp, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { sha256Hex } from "@wfbench/digest";
import { redactKnownSecrets, redactText } from "@wfbench/redact";
import { Agent, request as undiciRequest } from "undici";
import { createCellTokenRegistry } from "./cell-tokens.js";
import { createSseConformanceChecker } from "./check-sse-conformance.js";
import { GatewayConfigError, GatewayListenError } from "./errors.js";
import { DEFAULT_CONNECTION_LIMITS, guardConnections } from "./guard-connections.js";
import type { ConnectionLimits, ConnectionStats } from "./guard-connections.js";
import { createUsageAccumulator, emptyUsage, extractUsageFromMessage } from "./extract-usage.js";
import { createSseParser } from "./parse-sse.js";
import { priceUsage, readPriceTableVersion } from "./price-usage.js";
import { GATEWAY_REQUEST_TIMEOUT_S } from "./read-gateway-env.js";
import { ListenConfig, MessagesRequestHead, UpstreamConfig } from "./schema.js";
import type { RequestOutcome, UsageRow } from "./schema.js";
import { startOpenAiTranslator, type OpenAiTranslator } from "./start-openai-translator.js";
import { summarizeCellUsage } from "./summarize-cell-usage.js";
import type { CellUsageSummary, StreamAccounting } from "./summarize-cell-usage.js";
import { openUsageLog } from "./usage-log.js";

/** Options of the front proxy. */
export interface StartGatewayOptions {
  /** Unix socket (bind-mounted into the sandbox) or loopback TCP fallback. */
  readonly listen: ListenConfig;
  readonly upstream: UpstreamConfig;
  /** Append-only JSONL of usage rows (created 0600). */
  readonly usageLogPath: string;
  /** Upstream header and body idle timeout; defaults to GATEWAY_REQUEST_TIMEOUT_S. */
  readonly requestTimeoutMs?: number;
  /** Largest request body accepted, in bytes (default 64 MiB). */
  readonly maxRequestBytes?: number;
  /**
   * Further secrets to strip (with the upstream key) from response headers, non-streaming bodies and usage rows,
   * e.g. the OpenAI key that sits behind a LiteLLM upstream.
   */
  readonly redact?: readonly string[];
  /** Bounds on client connections (DEFAULT_CONNECTION_LIMITS for anything left out). */
  readonly connectionLimits?: Partial<ConnectionLimits>;
}

/** A running metering gateway. */
export interface Gateway {
  /** The Unix socket path, or null when listening on TCP. */
  readonly socketPath: string | null;
  /** Base URL for clients: `http://127.0.0.1:<port>`, or `http://localhost` for socket clients. */
  readonly url: string;
  /** Mints a token valid for `cellId` until revokeCell. */
  mintCellToken(cellId: string): string;
  /** Revokes every token of the cell; later requests with them get 401. */
  revokeCell(cellId: string): number;
  /**
   * Totals of every request the cell's tokens made through this gateway (rows recorded so far); with what the cell's
   * CLI streams account for, also the served requests they do not.
   */
  summarizeCell(cellId: string, stream?: StreamAccounting): CellUsageSummary;
  /** Resolves once every finished request's row is on disk. */
  flush(): Promise<void>;
  /** Connection counts so far: open, peak, and every refusal, eviction and unauthenticated close. */
  connectionStats(): ConnectionStats;
  /** Stops listening, aborts in-flight upstream calls, flushes and closes the log. Idempotent. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
// Client credentials are ours to check, never the upstream's; encoding is forced to identity so usage can be read.
// `expect` was answered by this server already (Node sends the 100 Continue); forwarded, undici refuses the request,
// which would be logged as an unreachable upstream: an outage a client could fake at will.
const NOT_FORWARDED = new Set([...HOP_BY_HOP, "host", "content-length", "x-api-key", "authorization", "accept-encoding", "expect"]);
const NON_STREAM_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Longest model id, upstream request id or message id a usage row keeps (a client or upstream picks them). */
const MAX_ROW_ID_CHARS = 200;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

// Every credential header value counts (Node keeps only the first of repeated Authorization headers in
// `req.headers`): two different tokens, or a non-Bearer Authorization beside a token, are an identity conflict the
// gateway refuses rather than resolves, so one request can never be attributed to a cell it merely named.
function presentedToken(req: IncomingMessage): { token: string; conflict: boolean } {
  const presented = new Set<string>();
  for (const value of req.headersDistinct["x-api-key"] ?? []) {
    if (value !== "") presented.add(value);
  }
  for (const value of req.headersDistinct["authorization"] ?? []) {
    presented.add(/^Bearer\s+(\S+)\s*$/i.exec(value)?.[1] ?? "");
  }
  if (presented.size > 1) return { token: "", conflict: true };
  return { token: [...presented][0] ?? "", conflict: false };
}

function redactHeader(value: string | string[], secrets: readonly (string | undefined)[]): string | string[] {
  return Array.isArray(value) ? value.map((v) => redactKnownSecrets(v, secrets)) : redactKnownSecrets(value, secrets);
}

// A non-streaming body is rewritten only when it actually contains a secret, so ordinary replies stay byte for byte.
function redactBody(body: Buffer, encoding: string | string[] | undefined, secrets: readonly (string | undefined)[]): Buffer {
  const name = typeof encoding === "string" ? encoding.trim().toLowerCase() : encoding === undefined ? "identity" : "";
  if (name !== "identity" && name !== "") return body;
  const text = body.toString("utf8");
  const redacted = redactKnownSecrets(text, secrets);
  return redacted === text ? body : Buffer.from(redacted, "utf8");
}

function sendError(res: ServerResponse, status: number, type: string, message: string): number {
  const body = JSON.stringify({ type: "error", error: { type, message } });
  if (!res.headersSent) {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  }
  res.end(body);
  return Buffer.byteLength(body);
}

function waitForDrainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

// The body is forwarded exactly as received; only the gateway's own read of model/stream needs it decoded.
function decodeForInspection(body: Buffer, encoding: string | undefined, limit: number): Buffer | null {
  const name = (encoding ?? "identity").trim().toLowerCase();
  try {
    if (name === "identity" || name === "") return body;
    if (name === "gzip" || name === "x-gzip") return gunzipSync(body, { maxOutputLength: limit });
    if (name === "deflate") return inflateSync(body, { maxOutputLength: limit });
    if (name === "br") return brotliDecompressSync(body, { maxOutputLength: limit });
  } catch {
    return null;
  }
  return null;
}

interface FailedBody {
  readonly firstRequestId: string;
  attempts: number;
}

/**
 * Starts the metering front proxy: authenticates per-cell tokens, forwards `POST /v1/messages` to the one configured
 * upstream with the real key, tees the response to the client byte for byte, and appends one fsynced usage row per
 * request (refused, failed and aborted ones too). Trusts only the upstream config; every client header, body and
 * upstream byte is treated as untrusted input; refuses a bad listen target, upstream, timeout or size limit.
 * @throws {GatewayConfigError} @throws {GatewayListenError}
 */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const listen = ListenConfig.safeParse(options.listen);
  if (!listen.success) throw new GatewayConfigError(`invalid listen target: ${listen.error.message.slice(0, 200)}`);
  const upstreamParsed = UpstreamConfig.safeParse(options.upstream);
  if (!upstreamParsed.success) {
    throw new GatewayConfigError(`invalid upstream: ${upstreamParsed.error.message.slice(0, 200)}`);
  }
  const configured = upstreamParsed.data;
  const configuredBase = new URL(configured.baseUrl);
  if (configuredBase.username !== "" || configuredBase.password !== "" || configuredBase.search !== "" || configuredBase.hash !== "") {
    throw new GatewayConfigError("upstream baseUrl must not carry credentials, a query or a fragment");
  }
  // The key goes to this origin: plain http only where nothing leaves the machine (loopback, or a Unix socket).
  if (configuredBase.protocol !== "https:" && configured.socketPath === undefined && !LOOPBACK_HOSTS.has(configuredBase.hostname)) {
    throw new GatewayConfigError(`upstream baseUrl ${configuredBase.protocol}//${configuredBase.host}: use https, or http only to 127.0.0.1, ::1 or localhost`);
  }
  if (configured.kind === "openai" && (configured.apiKey === undefined || configured.socketPath !== undefined)) {
    throw new GatewayConfigError("an openai upstream needs the provider's apiKey and no socketPath: the gateway starts its translator itself");
  }
  // The OpenAI route: the gateway supervises an in-process translator on a private socket and forwards to it, so
  // metering stays on the Anthropic side and the provider key never leaves this process.
  let translator: { readonly service: OpenAiTranslator; readonly dir: string } | null = null;
  const startTranslator = async (apiKey: string): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), "wfgw-oai-"));
    try {
      const service = await startOpenAiTranslator({ socketPath: join(dir, "translator.sock"), baseUrl: configured.baseUrl, apiKey, ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }) });
      translator = { service, dir };
      return service.socketPath;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  };
  const stopTranslator = async (): Promise<void> => {
    const running = translator;
    translator = null;
    if (running === null) return;
    await running.service.close();
    await rm(running.dir, { recursive: true, force: true });
  };
  const timeoutMs = options.requestTimeoutMs ?? GATEWAY_REQUEST_TIMEOUT_S * 1000;
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024 * 1024;
  for (const [name, value] of [["requestTimeoutMs", timeoutMs], ["maxRequestBytes", maxRequestBytes]] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new GatewayConfigError(`${name} must be a positive integer, got ${String(value)}`);
    }
  }
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new GatewayConfigError(`connectionLimits.${name} must be a positive integer, got ${String(value)}`);
    }
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new GatewayConfigError("connectionLimits.headersTimeoutMs must not exceed requestTimeoutMs");
  const secrets: readonly (string | undefined)[] = [configured.apiKey, ...(options.redact ?? [])];
  const priceTable = readPriceTableVersion();
  const rowId = (value: string | null): string | null => (value === null ? null : redactKnownSecrets(value, secrets).slice(0, MAX_ROW_ID_CHARS));

  if ("socketPath" in listen.data) {
    const existing = await lstat(listen.data.socketPath).catch(() => null);
    if (existing !== null) throw new GatewayListenError(`socket path ${listen.data.socketPath} already exists`);
  }

  // Started only once every option is checked, so a refusal above leaves nothing running.
  const upstream = configured.kind === "openai" && configured.apiKey !== undefined
    ? { ...configured, baseUrl: "http://localhost", socketPath: await startTranslator(configured.apiKey), apiKey: undefined }
    : configured;
  const base = new URL(upstream.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");

  const dispatcher = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    ...(upstream.socketPath === undefined ? {} : { connect: { socketPath: upstream.socketPath } }),
  });
  const tokens = createCellTokenRegistry();
  const log = await openUsageLog(options.usageLogPath).catch(async (error: unknown) => {
    await dispatcher.close();
    await stopTranslator();
    throw error;
  });
  const rows: UsageRow[] = [];
  const failedBodies = new Map<string, FailedBody>();
  const inflight = new Set<AbortController>();
  let pendingWrites = new Set<Promise<void>>();
  let writeError: unknown = null;
  let shuttingDown = false;

  const record = (row: UsageRow): void => {
    rows.push(row);
    const write = log.append(row).catch((error: unknown) => {
      writeError ??= error;
    });
    pendingWrites.add(write);
    void write.finally(() => pendingWrites.delete(write));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const receivedAt = new Date().toISOString();
    const requestId = `wfgw_${randomUUID()}`;
    const row: UsageRow = {
      schema_version: 1,
      gateway_request_id: requestId,
      cell_id: null,
      received_at: receivedAt,
      completed_at: receivedAt,
      duration_ms: 0,
      path: (req.url ?? "").slice(0, 500),
      upstream: upstream.kind,
      stream: null,
      model_requested: null,
      model_served: null,
      http_status: null,
      upstream_request_id: null,
      message_id: null,
      outcome: "ok",
      usage: emptyUsage(),
      cost_usd: null,
      priced_model: null,
      price_table: priceTable,
      attempt: 1,
      retry_of: null,
      request_sha256: null,
      sse_conformant: null,
      sse_violations: [],
      response_bytes: 0,
      error: null,
    };
    // Priced on the full ids; the row keeps bounded, redacted copies (an upstream may echo anything, the key included).
    let modelRequested: string | null = null;
    let modelServed: string | null = null;
    const finish = (outcome: RequestOutcome, status: number | null, error: string | null): void => {
      row.model_requested = rowId(modelRequested);
      row.model_served = rowId(modelServed);
      row.upstream_request_id = rowId(row.upstream_request_id);
      row.message_id = rowId(row.message_id);
      row.outcome = outcome;
      row.http_status = status;
      row.error = error === null ? null : redactText(error, secrets).slice(0, 500);
      row.completed_at = new Date().toISOString();
      row.duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
      const priced = priceUsage(row.usage, modelServed ?? modelRequested);
      row.cost_usd = priced.costUsd;
      row.priced_model = priced.pricedModel;
      if (outcome !== "ok" && row.cell_id !== null && row.request_sha256 !== null) {
        const key = `${row.cell_id}\0${row.request_sha256}`;
        if (!failedBodies.has(key)) failedBodies.set(key, { firstRequestId: requestId, attempts: row.attempt });
      }
      record(row);
    };

    const presented = presentedToken(req);
    const cellId = presented.conflict ? null : tokens.resolveToken(presented.token);
    const admitted = cellId === null ? null : guard.admit(req.socket, cellId);
    if (cellId === null || admitted === "other-cell") {
      req.resume();
      const why = presented.conflict ? "conflicting gateway credentials" : cellId === null ? "unknown or revoked gateway token" : "the connection already carries another cell's token";
      // A client without a valid token keeps no connection: each refusal costs it a reconnect.
      res.setHeader("connection", "close");
      row.response_bytes = sendError(res, 401, "authentication_error", why);
      finish("unauthorized", 401, why);
      return;
    }
    row.cell_id = cellId;
    if (admitted === "cell-at-capacity") {
      req.resume();
      res.setHeader("connection", "close");
      const why = `the cell already holds ${limits.maxCellConnections} gateway connections`;
      row.response_bytes = sendError(res, 429, "rate_limit_error", why);
      finish("over_capacity", 429, why);
      return;
    }
    const pathname = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || pathname !== "/v1/messages") {
      req.resume();
      row.response_bytes = sendError(res, 404, "not_found_error", "the gateway serves POST /v1/messages only");
      finish("bad_request", 404, `${req.method ?? "?"} ${pathname ?? ""} is not served`);
      return;
    }
    let body: Buffer | null;
    try {
      body = await readBody(req, maxRequestBytes);
    } catch (error) {
      finish("aborted", null, `client went away while sending the request: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (body === null) {
      row.response_bytes = sendError(res, 413, "request_too_large", "request body too large");
      finish("bad_request", 413, "request body too large");
      return;
    }
    // A body can take up to requestTimeoutMs to arrive: the token must still be live when the upstream is asked.
    if (tokens.resolveToken(presented.token) !== cellId) {
      const why = "unknown or revoked gateway token";
      row.cell_id = null;
      res.setHeader("connection", "close");
      row.response_bytes = sendError(res, 401, "authentication_error", why);
      finish("unauthorized", 401, `${why} (revoked while the request body arrived)`);
      return;
    }
    row.request_sha256 = sha256Hex(body);
    const decoded = decodeForInspection(body, headerValue(req.headers, "content-encoding"), maxRequestBytes);
    let head: unknown;
    try {
      if (decoded === null) throw new Error("undecodable");
      head = JSON.parse(decoded.toString("utf8"));
    } catch {
      row.response_bytes = sendError(res, 400, "invalid_request_error", "request body is not JSON (after content-encoding)");
      finish("bad_request", 400, "request body is not JSON");
      return;
    }
    const parsedHead = MessagesRequestHead.safeParse(head);
    if (parsedHead.success) {
      modelRequested = parsedHead.data.model ?? null;
      row.stream = parsedHead.data.stream ?? false;
    }
    const earlier = failedBodies.get(`${cellId}\0${row.request_sha256}`);
    if (earlier !== undefined) {
      earlier.attempts += 1;
      row.attempt = earlier.attempts;
      row.retry_of = earlier.firstRequestId;
    }

    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || NOT_FORWARDED.has(name)) continue;
      headers[name] = value;
    }
    headers["accept-encoding"] = "identity";
    if (upstream.apiKey !== undefined) {
      if (upstream.authScheme === "bearer") headers["authorization"] = `Bearer ${upstream.apiKey}`;
      else headers["x-api-key"] = upstream.apiKey;
    }

    const abort = new AbortController();
    inflight.add(abort);
    let clientGone = false;
    res.on("close", () => {
      if (!res.writableFinished) {
        clientGone = true;
        abort.abort();
      }
    });

    const usageReader = createUsageAccumulator();
    const checker = createSseConformanceChecker();
    const sse = createSseParser();
    let sawErrorEvent = false;
    try {
      const upstreamRes = await undiciRequest(new URL(`${basePath}${req.url ?? ""}`, base.origin), {
        method: "POST",
        headers,
        body,
        dispatcher,
        signal: abort.signal,
      });
      row.http_status = upstreamRes.statusCode;
      const upstreamId = upstreamRes.headers["request-id"] ?? upstreamRes.headers["x-request-id"];
      row.upstream_request_id = typeof upstreamId === "string" ? upstreamId : null;
      const outHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstreamRes.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        outHeaders[name] = redactHeader(value, secrets);
      }
      const contentType = upstreamRes.headers["content-type"];
      const isSse = typeof contentType === "string" && contentType.toLowerCase().startsWith("text/event-stream");
      // Streams are teed as they arrive; a non-streaming body is held (bounded) so a secret it echoes can be removed.
      let passThrough = isSse;
      if (passThrough) res.writeHead(upstreamRes.statusCode, outHeaders);
      const captured: Buffer[] = [];
      let capturedBytes = 0;
      for await (const chunk of upstreamRes.body) {
        const buffer = chunk as Buffer;
        row.response_bytes += buffer.length;
        if (isSse) {
          if (!res.write(buffer)) await waitForDrainOrClose(res);
          for (const event of sse.push(buffer)) {
            const data = checker.push(event);
            usageReader.push(data);
            if (event.event === "error") sawErrorEvent = true;
          }
        } else if (!passThrough && capturedBytes + buffer.length <= NON_STREAM_CAPTURE_BYTES) {
          captured.push(buffer);
          capturedBytes += buffer.length;
        } else {
          if (!passThrough) {
            passThrough = true;
            res.writeHead(upstreamRes.statusCode, outHeaders);
            for (const held of captured) res.write(held);
          }
          if (!res.write(buffer)) await waitForDrainOrClose(res);
        }
        if (clientGone) break;
      }
      if (clientGone) {
        throw new Error("client closed the connection before the response ended");
      }
      if (passThrough) res.end();
      else {
        const held = Buffer.concat(captured, capturedBytes);
        const out = redactBody(held, upstreamRes.headers["content-encoding"], secrets);
        if (out !== held) outHeaders["content-length"] = String(out.length);
        res.writeHead(upstreamRes.statusCode, outHeaders);
        res.end(out);
      }
      if (isSse) {
        for (const event of sse.end()) usageReader.push(checker.push(event));
        const report = checker.finish();
        const result = usageReader.result();
        row.usage = result.usage;
        modelServed = result.model;
        row.message_id = result.messageId;
        row.sse_conformant = report.conformant;
        row.sse_violations = [...report.violations];
      } else {
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(Buffer.concat(captured, capturedBytes).toString("utf8"));
        } catch {
          parsed = null;
        }
        const result = extractUsageFromMessage(parsed);
        row.usage = result.usage;
        modelServed = result.model;
        row.message_id = result.messageId;
      }
      const status = upstreamRes.statusCode;
      if (status >= 400) finish("http_error", status, `upstream answered HTTP ${status}`);
      else if (sawErrorEvent) finish("stream_error", status, "upstream stream carried an error event");
      else finish("ok", status, null);
    } catch (error) {
      const partial = usageReader.result();
      // A message that began and then broke off was still (partly) served: keep its id with its usage.
      row.message_id = partial.messageId;
      if (partial.sawUsage) {
        row.usage = partial.usage;
        modelServed = partial.model;
      }
      if (row.sse_conformant === null && row.response_bytes > 0) {
        const report = checker.finish();
        row.sse_conformant = report.conformant;
        row.sse_violations = [...report.violations];
      }
      const message = error instanceof Error ? error.message : String(error);
      if (clientGone || shuttingDown) {
        if (res.headersSent) res.destroy();
        finish("aborted", row.http_status, shuttingDown ? `gateway closed mid-request: ${message}` : message);
      } else if (res.headersSent) {
        res.destroy();
        finish("stream_error", row.http_status, `upstream stream failed: ${message}`);
      } else if (row.http_status !== null) {
        // The upstream answered but its held (non-streaming) body broke off: the client gets a clean 502.
        row.response_bytes = sendError(res, 502, "api_error", "the upstream response broke off");
        finish("stream_error", row.http_status, `upstream body failed: ${message}`);
      } else {
        row.response_bytes = sendError(res, 502, "api_error", "the gateway could not reach its upstream");
        finish("upstream_unreachable", 502, message);
      }
    } finally {
      inflight.delete(abort);
    }
  };

  const active = new Set<Promise<void>>();
  const server: Server = createServer({
    keepAliveTimeout: 65_000,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks both timeouts on this interval (default 30 s), so it bounds how late they fire.
    connectionsCheckingInterval: 1_000,
  }, (req, res) => {
    const handled = handle(req, res).catch((error: unknown) => {
      // A bug in the handler must not take the gateway down with it; the client gets a 500.
      if (!res.headersSent) sendError(res, 500, "api_error", "gateway internal error");
      else res.destroy();
      writeError ??= error;
    });
    active.add(handled);
    void handled.finally(() => active.delete(handled));
  });
  const guard = guardConnections(server, limits);

  let url: string;
  let socketPath: string | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      if ("socketPath" in listen.data) server.listen(listen.data.socketPath, () => resolve());
      else server.listen(listen.data.port, listen.data.host, () => resolve());
    });
  } catch (cause) {
    await log.close();
    await dispatcher.close();
    await stopTranslator();
    throw new GatewayListenError(`gateway cannot listen: ${String(cause)}`, { cause });
  }
  if ("socketPath" in listen.data) {
    socketPath = listen.data.socketPath;
    url = "http://localhost";
  } else {
    const address = server.address() as AddressInfo;
    url = `http://127.0.0.1:${address.port}`;
  }

  let closing: Promise<void> | null = null;
  const flush = async (): Promise<void> => {
    while (pendingWrites.size > 0) await Promise.all([...pendingWrites]);
    if (writeError !== null) {
      const error = writeError;
      writeError = null;
      throw error;
    }
  };

  return {
    socketPath,
    url,
    mintCellToken: (cellId) => tokens.mintCellToken(cellId),
    revokeCell: (cellId) => {
      const revoked = tokens.revokeCell(cellId);
      guard.closeCell(cellId);
      return revoked;
    },
    summarizeCell: (cellId, stream) => summarizeCellUsage(rows, cellId, stream),
    flush,
    connectionStats: () => guard.stats(),
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const controller of inflight) controller.abort();
        server.closeAllConnections();
        guard.dispose();
        await closed;
        // Aborted requests record their rows once the abort lands; wait for every handler to finish.
        while (active.size > 0) await Promise.all([...active]);
        try {
          await flush();
        } finally {
          pendingWrites = new Set();
          await log.close();
          await dispatcher.close();
          await stopTranslator();
          if (socketPath !== null) await unlink(socketPath).catch(() => undefined);
        }
      })();
      return closing;
    },
  };
}
