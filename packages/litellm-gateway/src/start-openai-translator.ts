import { randomUUID } from "node:crypto";
import { lstat, unlink } from "node:fs/promises";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { redactText } from "@wfbench/redact";
import { Agent, request as undiciRequest } from "undici";
import { z } from "zod";
import { GatewayConfigError, GatewayListenError } from "./errors.js";
import { createSseParser } from "./parse-sse.js";
import { GATEWAY_REQUEST_TIMEOUT_S } from "./read-gateway-env.js";
import { AnthropicRequest, createStreamTranslator, errorTypeForStatus, toAnthropicMessage, toChatCompletionsRequest } from "./translate-openai.js";

/** Options of the in-process Anthropic → OpenAI translator. */
export interface StartOpenAiTranslatorOptions {
  /** Unix socket the gateway connects to (its directory should be private: anyone who can connect spends the key). */
  readonly socketPath: string;
  /** OpenAI-compatible origin plus optional path prefix; `/v1/chat/completions` is appended. */
  readonly baseUrl: string;
  /** The provider key, sent upstream as `Authorization: Bearer`; never echoed. */
  readonly apiKey: string;
  /** Upstream header and body idle timeout; defaults to GATEWAY_REQUEST_TIMEOUT_S. */
  readonly requestTimeoutMs?: number;
}

/** A running translator. */
export interface OpenAiTranslator {
  readonly socketPath: string;
  /** Stops listening, aborts in-flight upstream calls and removes the socket. Idempotent. */
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;
/** Largest non-streaming completion read from the provider (the gateway holds at most 16 MiB of a reply, too). */
const MAX_COMPLETION_BYTES = 16 * 1024 * 1024;
const OpenAiErrorBody = z.looseObject({ error: z.looseObject({ message: z.string().optional() }) });

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: "error", error: { type, message } });
  if (res.headersSent) {
    // Mid-stream the client is reading SSE: an error event is what an Anthropic stream ends with.
    res.end(`event: error\ndata: ${body}\n\n`);
    return;
  }
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads at most `limit` bytes of a provider body and drops the rest (the connection is closed), so a provider that
 * never ends its body cannot fill the heap; `text` is null when the body was longer.
 */
async function readCapped(body: AsyncIterable<unknown> & { destroy(): unknown }, limit: number, keepHead: boolean): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > limit) {
      if (keepHead) chunks.push(buffer.subarray(0, limit - size));
      body.destroy();
      return keepHead ? Buffer.concat(chunks).toString("utf8") : null;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/**
 * Starts the Anthropic Messages → OpenAI Chat Completions translator on a Unix socket: `POST /v1/messages` (streaming
 * or not) is rewritten to `POST <baseUrl>/v1/chat/completions` with the provider key, and the answer rewritten back
 * (SSE frames, tool calls, usage, errors with the provider's status). It sits behind the metering gateway, so usage is
 * read on its Anthropic side. Trusts only its options; refuses a base URL that is not http(s) or carries credentials,
 * a query or a fragment, and an existing socket path. Every provider byte is untrusted; the key is redacted from
 * every message it passes on. @throws {GatewayConfigError} @throws {GatewayListenError}
 */
export async function startOpenAiTranslator(options: StartOpenAiTranslatorOptions): Promise<OpenAiTranslator> {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch (cause) {
    throw new GatewayConfigError("translator baseUrl is not a URL", { cause });
  }
  if ((base.protocol !== "https:" && base.protocol !== "http:") || base.username !== "" || base.password !== "" || base.search !== "" || base.hash !== "") {
    throw new GatewayConfigError("translator baseUrl must be http(s) without credentials, a query or a fragment");
  }
  if (options.apiKey.trim() === "") throw new GatewayConfigError("translator apiKey is empty");
  const timeoutMs = options.requestTimeoutMs ?? GATEWAY_REQUEST_TIMEOUT_S * 1000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new GatewayConfigError(`requestTimeoutMs must be a positive integer, got ${String(timeoutMs)}`);
  if ((await lstat(options.socketPath).catch(() => null)) !== null) throw new GatewayListenError(`socket path ${options.socketPath} already exists`);
  // A provider path prefix ending in /v1 (the usual way OpenAI base URLs are written) is not doubled.
  const prefix = base.pathname.replace(/\/+$/u, "").replace(/\/v1$/u, "");
  const target = new URL(`${prefix}/v1/chat/completions`, base.origin);
  const secrets = [options.apiKey];
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const inflight = new Set<AbortController>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || pathname !== "/v1/messages") {
      req.resume();
      sendError(res, 404, "not_found_error", "the OpenAI translator serves POST /v1/messages only");
      return;
    }
    const raw = await readBody(req);
    if (raw === null) return sendError(res, 413, "request_too_large", "request body too large");
    let parsed: AnthropicRequest;
    try {
      const result = AnthropicRequest.safeParse(JSON.parse(raw.toString("utf8")));
      if (!result.success) {
        const issue = result.error.issues[0];
        return sendError(res, 400, "invalid_request_error", `not a Messages request: ${issue?.path.join(".") ?? "?"}: ${issue?.message.slice(0, 200) ?? "invalid"}`);
      }
      parsed = result.data;
    } catch {
      return sendError(res, 400, "invalid_request_error", "request body is not JSON");
    }
    const abort = new AbortController();
    inflight.add(abort);
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      const upstream = await undiciRequest(target, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${options.apiKey}`, "accept-encoding": "identity" },
        body: JSON.stringify(toChatCompletionsRequest(parsed)),
        dispatcher,
        signal: abort.signal,
      });
      const upstreamId = upstream.headers["x-request-id"];
      const idHeader: Record<string, string> = typeof upstreamId === "string" ? { "request-id": upstreamId.slice(0, 200) } : {};
      if (upstream.statusCode >= 400) {
        const text = (await readCapped(upstream.body, MAX_ERROR_BYTES, true)) ?? "";
        let message = `OpenAI-compatible upstream answered HTTP ${upstream.statusCode}`;
        try {
          const body = OpenAiErrorBody.safeParse(JSON.parse(text));
          if (body.success && body.data.error.message !== undefined) message = `${message}: ${body.data.error.message.slice(0, 500)}`;
        } catch {
          // A non-JSON error page says nothing more than its status.
        }
        for (const [name, value] of Object.entries(idHeader)) res.setHeader(name, value);
        const retryAfter = upstream.headers["retry-after"];
        if (typeof retryAfter === "string") res.setHeader("retry-after", retryAfter);
        return sendError(res, upstream.statusCode, errorTypeForStatus(upstream.statusCode), redactText(message, secrets));
      }
      const messageId = `msg_oai_${randomUUID().replaceAll("-", "")}`;
      if (parsed.stream !== true) {
        const text = await readCapped(upstream.body, MAX_COMPLETION_BYTES, false);
        if (text === null) return sendError(res, 502, "api_error", `the OpenAI-compatible upstream answered with more than ${MAX_COMPLETION_BYTES} bytes`);
        let completion: unknown = null;
        try {
          completion = JSON.parse(text);
        } catch {
          completion = null;
        }
        const message = toAnthropicMessage(completion, parsed.model);
        if (message === null) return sendError(res, 502, "api_error", "the OpenAI-compatible upstream answered with something that is not a chat completion");
        const body = JSON.stringify({ ...message, id: messageId });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...idHeader });
        res.end(body);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...idHeader });
      const translator = createStreamTranslator(messageId, parsed.model);
      const sse = createSseParser();
      let done = false;
      const emit = (events: readonly { data: string }[]): void => {
        for (const event of events) {
          if (done) return;
          if (event.data.trim() === "[DONE]") {
            done = true;
            for (const f of translator.finish()) res.write(f);
            return;
          }
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch {
            continue;
          }
          for (const f of translator.push(data)) res.write(f);
        }
      };
      for await (const chunk of upstream.body) emit(sse.push(chunk as Buffer));
      emit(sse.end());
      // A stream that ended without [DONE] was cut: say so instead of inventing a clean end.
      if (!done) return sendError(res, 502, "api_error", "the OpenAI-compatible stream ended before [DONE]");
      res.end();
    } catch (error) {
      if (abort.signal.aborted) {
        res.destroy();
        return;
      }
      const message = redactText(error instanceof Error ? error.message : String(error), secrets);
      sendError(res, 502, "api_error", `the translator could not reach its OpenAI-compatible upstream: ${message.slice(0, 300)}`);
    } finally {
      inflight.delete(abort);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, "api_error", "translator internal error");
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.socketPath, () => resolve());
    });
  } catch (cause) {
    await dispatcher.close();
    throw new GatewayListenError(`translator cannot listen on ${options.socketPath}: ${String(cause)}`, { cause });
  }
  let closing: Promise<void> | null = null;
  return {
    socketPath: options.socketPath,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const controller of inflight) controller.abort();
        server.closeAllConnections();
        await closed;
        await dispatcher.close();
        await unlink(options.socketPath).catch(() => undefined);
      })();
      return closing;
    },
  };
}
