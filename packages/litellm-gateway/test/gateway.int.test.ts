import Anthropic from "@anthropic-ai/sdk";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGateway } from "../src/start-gateway.js";
import type { Gateway } from "../src/start-gateway.js";
import { readUsageLog } from "../src/usage-log.js";
import { isGatewayError } from "../src/errors.js";
import { buildEvents, buildStream, frame } from "./support/sse.js";
import { startTestUpstream } from "./support/upstream.js";
import type { TestUpstream } from "./support/upstream.js";

type SdkFetchOptions = NonNullable<ConstructorParameters<typeof Anthropic>[0]>["fetchOptions"];
const REAL_KEY = "sk-ant-real-provider-key-0123456789";
const BODY = { model: "claude-sonnet-4-5", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] };

let dir: string;
let upstream: TestUpstream;
let gateway: Gateway;
let client: Agent;

async function post(token: string, body: unknown = BODY, path = "/v1/messages?beta=true", signal?: AbortSignal) {
  const res = await request(`http://localhost${path}`, {
    method: "POST",
    dispatcher: client,
    headers: { "x-api-key": token, "content-type": "application/json", "anthropic-version": "2023-06-01", "anthropic-beta": "claude-code-20250219" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

async function rows() {
  await gateway.flush();
  return readUsageLog(join(dir, "usage.jsonl"));
}

/** Rows once `count` exist: aborts are recorded when the gateway notices them, which is not instant under load. */
async function rowsOnce(count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = await rows();
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-int-"));
  upstream = await startTestUpstream();
  const socketPath = join(dir, "gw.sock");
  gateway = await startGateway({
    listen: { socketPath },
    upstream: { kind: "anthropic", baseUrl: upstream.url, apiKey: REAL_KEY },
    usageLogPath: join(dir, "usage.jsonl"),
  });
  client = new Agent({ connect: { socketPath } });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

describe("startGateway", () => {
  describe("a streamed request with a valid cell token", () => {
    it("tees the stream byte for byte, swaps the token for the real key and records delta-over-start usage", async () => {
      const token = gateway.mintCellToken("cell-a");
      const stream = buildStream({
        model: "claude-sonnet-4-5-20250929",
        startUsage: { input_tokens: 0, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 40 },
        deltaUsage: { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5 },
        toolInputJson: ['{"command"', ':"ls"}'],
      });
      upstream.enqueue({ kind: "sse", body: stream, chunkSize: 7 });
      const res = await post(token);
      expect(res.status).toBe(200);
      expect(res.text).toBe(stream);
      expect(res.headers["request-id"]).toBe("req_upstream");

      const seen = upstream.seen[0];
      expect(seen?.url).toBe("/v1/messages?beta=true");
      expect(seen?.headers["x-api-key"]).toBe(REAL_KEY);
      expect(seen?.headers["authorization"]).toBeUndefined();
      expect(seen?.headers["accept-encoding"]).toBe("identity");
      expect(seen?.headers["anthropic-beta"]).toBe("claude-code-20250219");
      expect(JSON.parse(seen?.body ?? "")).toEqual(BODY);

      const [row] = await rows();
      expect(row).toMatchObject({
        cell_id: "cell-a",
        outcome: "ok",
        http_status: 200,
        stream: true,
        model_requested: "claude-sonnet-4-5",
        model_served: "claude-sonnet-4-5-20250929",
        upstream_request_id: "req_upstream",
        usage: { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5, cache_creation_input_tokens: 40 },
        priced_model: "anthropic/claude-sonnet-4-5",
        sse_conformant: true,
        sse_violations: [],
        attempt: 1,
        retry_of: null,
        response_bytes: Buffer.byteLength(stream),
      });
      expect(row?.cost_usd).toBeGreaterThan(0);
      expect(row?.price_table).toMatch(/^@pydantic\/genai-prices@0\.1\.8/);
      const logText = await readFile(join(dir, "usage.jsonl"), "utf8");
      expect(logText).not.toContain(REAL_KEY);
      expect(logText).not.toContain(token);
    });

    it("forwards a gzip-encoded request body unchanged while reading its model", async () => {
      const token = gateway.mintCellToken("cell-gz");
      upstream.enqueue({ kind: "sse", body: buildStream() });
      const compressed = gzipSync(Buffer.from(JSON.stringify({ ...BODY, model: "claude-haiku-4-5" })));
      const res = await request("http://localhost/v1/messages", {
        method: "POST",
        dispatcher: client,
        headers: { "x-api-key": token, "content-type": "application/json", "content-encoding": "gzip" },
        body: compressed,
      });
      await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(upstream.seen[0]?.headers["content-encoding"]).toBe("gzip");
      const [row] = await rows();
      expect(row).toMatchObject({ model_requested: "claude-haiku-4-5", outcome: "ok" });
    });

    it("serves a strict SDK client (Bearer auth) and meters a non-streaming reply", async () => {
      const token = gateway.mintCellToken("cell-sdk");
      upstream.enqueue(
        { kind: "sse", body: buildStream({ deltaUsage: { output_tokens: 12 } }), chunkSize: 3 },
        { kind: "json", status: 200, body: { id: "msg_2", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 4, output_tokens: 2 } } },
      );
      const sdk = new Anthropic({ apiKey: null, authToken: token, baseURL: "http://localhost", fetchOptions: { dispatcher: client } as unknown as SdkFetchOptions, maxRetries: 0 });
      const message = await sdk.messages.stream({ model: "claude-opus-4-5", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).finalMessage();
      expect(message.content).toEqual([{ type: "text", text: "hello", citations: null }].map(({ type, text }) => expect.objectContaining({ type, text })));
      const plain = await sdk.messages.create({ model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: "y" }] });
      expect(plain.usage.output_tokens).toBe(2);
      const [streamed, nonStreamed] = await rows();
      expect(streamed).toMatchObject({ cell_id: "cell-sdk", stream: true, message_id: "msg_test", usage: { input_tokens: 10, output_tokens: 12 }, sse_conformant: true });
      expect(nonStreamed).toMatchObject({
        cell_id: "cell-sdk",
        stream: false,
        message_id: "msg_2",
        sse_conformant: null,
        usage: { input_tokens: 4, output_tokens: 2, cache_read_input_tokens: null, cache_creation_input_tokens: null },
        cost_usd: null,
      });
    });
  });

  describe("authentication", () => {
    it("answers 401 to unknown, revoked and missing tokens, never calls upstream, and logs each refusal", async () => {
      const token = gateway.mintCellToken("cell-done");
      expect(gateway.revokeCell("cell-done")).toBe(1);
      for (const presented of [token, "sk-wfb-unknown", ""]) {
        const res = await post(presented);
        expect(res.status).toBe(401);
        expect(JSON.parse(res.text)).toMatchObject({ type: "error", error: { type: "authentication_error" } });
      }
      expect(upstream.seen).toHaveLength(0);
      const logged = await rows();
      expect(logged.map((r) => [r.cell_id, r.outcome, r.http_status])).toEqual([
        [null, "unauthorized", 401],
        [null, "unauthorized", 401],
        [null, "unauthorized", 401],
      ]);
    });

    it("attributes traffic to the cell whose token was presented", async () => {
      const a = gateway.mintCellToken("cell-a");
      const b = gateway.mintCellToken("cell-b");
      upstream.enqueue({ kind: "sse", body: buildStream() }, { kind: "sse", body: buildStream() }, { kind: "sse", body: buildStream() });
      await post(a);
      await post(b);
      await post(a, { ...BODY, messages: [{ role: "user", content: "again" }] });
      await gateway.flush();
      expect(gateway.summarizeCell("cell-a")).toMatchObject({ requests: 2, inputTokens: 20, outputTokens: 10 });
      expect(gateway.summarizeCell("cell-b")).toMatchObject({ requests: 1, inputTokens: 10, outputTokens: 5 });
    });
  });

  describe("failures", () => {
    it("records an upstream 529 and links the identical retry to it", async () => {
      const token = gateway.mintCellToken("cell-r");
      upstream.enqueue(
        { kind: "json", status: 529, body: { type: "error", error: { type: "overloaded_error", message: "overloaded" } } },
        { kind: "sse", body: buildStream() },
      );
      expect((await post(token)).status).toBe(529);
      expect((await post(token)).status).toBe(200);
      const [failed, retried] = await rows();
      expect(failed).toMatchObject({ outcome: "http_error", http_status: 529, attempt: 1, retry_of: null, cost_usd: null });
      expect(failed?.usage).toEqual({ input_tokens: null, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null });
      expect(retried).toMatchObject({ outcome: "ok", attempt: 2, retry_of: failed?.gateway_request_id });
      expect(gateway.summarizeCell("cell-r")).toMatchObject({ requests: 2, failedRequests: 1, retriedRequests: 1, complete: true });
    });

    it("flags a non-conformant upstream stream but still passes it through unchanged", async () => {
      const token = gateway.mintCellToken("cell-x");
      const events = buildEvents().filter((e) => e["type"] !== "content_block_stop");
      events.splice(1, 0, { type: "message_start", message: { id: "dup", usage: {} } });
      const broken = events.map((e) => frame(e)).join("");
      upstream.enqueue({ kind: "sse", body: broken });
      const res = await post(token);
      expect(res.text).toBe(broken);
      const [row] = await rows();
      expect(row?.outcome).toBe("ok");
      expect(row?.sse_conformant).toBe(false);
      expect(row?.sse_violations.join("\n")).toMatch(/duplicate message_start/);
      expect(row?.sse_violations.join("\n")).toMatch(/is open/);
    });

    it("records an error event inside a 200 stream as stream_error", async () => {
      const token = gateway.mintCellToken("cell-e");
      const body = frame(buildEvents()[0] ?? {}) + frame({ type: "error", error: { type: "overloaded_error", message: "x" } });
      upstream.enqueue({ kind: "sse", body });
      await post(token);
      const [row] = await rows();
      expect(row).toMatchObject({ outcome: "stream_error", http_status: 200, sse_conformant: false, usage: { input_tokens: 10 } });
    });

    it("records an upstream that hangs up mid-stream as stream_error with the usage seen so far", async () => {
      const token = gateway.mintCellToken("cell-h");
      upstream.enqueue({ kind: "hangup-after", body: frame(buildEvents()[0] ?? {}) });
      await post(token).catch(() => undefined);
      const [row] = await rows();
      expect(row).toMatchObject({ outcome: "stream_error", cell_id: "cell-h", usage: { input_tokens: 10, output_tokens: 1 }, sse_conformant: false });
    });

    it("records a client that aborts mid-stream as aborted", async () => {
      const token = gateway.mintCellToken("cell-ab");
      upstream.enqueue({ kind: "stall-after", body: frame(buildEvents()[0] ?? {}) });
      const controller = new AbortController();
      const res = await request("http://localhost/v1/messages", {
        method: "POST",
        dispatcher: client,
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify(BODY),
        signal: controller.signal,
      });
      for await (const _chunk of res.body) {
        controller.abort();
        break;
      }
      const [row] = await rowsOnce(1);
      expect(row).toMatchObject({ outcome: "aborted", cell_id: "cell-ab", usage: { input_tokens: 10 } });
      // Usage as far as the stream got (message_start only), priced from that, and the cut-off stream flagged.
      expect(row?.usage).toEqual({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(row?.cost_usd).toBeGreaterThan(0);
      expect(row?.sse_conformant).toBe(false);
      expect(gateway.summarizeCell("cell-ab")).toMatchObject({ requests: 1, failedRequests: 1, inputTokens: 10, outputTokens: 1 });
    });

    it("records an in-flight stream as aborted when the gateway closes", async () => {
      const token = gateway.mintCellToken("cell-close");
      upstream.enqueue({ kind: "stall-after", body: frame(buildEvents()[0] ?? {}) });
      const res = await request("http://localhost/v1/messages", {
        method: "POST",
        dispatcher: client,
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify(BODY),
      });
      res.body.on("error", () => undefined);
      for await (const _chunk of res.body) break;
      await gateway.close();
      const [row] = await readUsageLog(join(dir, "usage.jsonl"));
      expect(row).toMatchObject({ cell_id: "cell-close", outcome: "aborted", usage: { input_tokens: 10 } });
    });

    it("records a client that hangs up while sending its body as aborted, without failing the log", async () => {
      const token = gateway.mintCellToken("cell-half");
      const { connect } = await import("node:net");
      const socket = connect(join(dir, "gw.sock"));
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      // `Expect: 100-continue` makes the server answer once the handler has the request, so the hang-up lands mid-body.
      const continued = new Promise<void>((resolve) => socket.once("data", () => resolve()));
      socket.write(`POST /v1/messages HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${token}\r\nexpect: 100-continue\r\ncontent-length: 1000\r\n\r\n`);
      await continued;
      socket.write('{"model":');
      socket.destroy();
      const [row] = await rowsOnce(1);
      expect(row).toMatchObject({ cell_id: "cell-half", outcome: "aborted", http_status: null });
      expect(upstream.seen).toHaveLength(0);
    });

    it("answers 502 and records upstream_unreachable when the upstream is down", async () => {
      await upstream.close();
      const token = gateway.mintCellToken("cell-u");
      const res = await post(token);
      expect(res.status).toBe(502);
      expect(res.text).not.toContain(REAL_KEY);
      const [row] = await rows();
      expect(row).toMatchObject({ outcome: "upstream_unreachable", http_status: 502, cell_id: "cell-u" });
      expect(row?.error).not.toContain(REAL_KEY);
    });

    it("answers 404 for other routes and 400 for a non-JSON body, recording both", async () => {
      const token = gateway.mintCellToken("cell-b");
      expect((await post(token, BODY, "/v1/models")).status).toBe(404);
      expect((await post(token, "{not json")).status).toBe(400);
      expect(upstream.seen).toHaveLength(0);
      expect((await rows()).map((r) => [r.outcome, r.http_status])).toEqual([["bad_request", 404], ["bad_request", 400]]);
    });
  });

  describe("per-cell attribution", () => {
    async function postHeaders(headers: Record<string, string>) {
      const res = await request("http://localhost/v1/messages", {
        method: "POST",
        dispatcher: client,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(BODY),
      });
      return { status: res.statusCode, text: await res.body.text() };
    }

    it("refuses a request whose x-api-key and Bearer tokens disagree, even when both are live", async () => {
      const a = gateway.mintCellToken("cell-a");
      const b = gateway.mintCellToken("cell-b");
      upstream.enqueue({ kind: "sse", body: buildStream() });
      expect((await postHeaders({ "x-api-key": a, authorization: `Bearer ${b}` })).status).toBe(401);
      expect((await postHeaders({ "x-api-key": a, authorization: "Basic Zm9vOmJhcg==" })).status).toBe(401);
      expect(upstream.seen).toHaveLength(0);
      // The same token in both headers is one identity, not a conflict.
      expect((await postHeaders({ "x-api-key": a, authorization: `Bearer ${a}` })).status).toBe(200);
      const logged = await rows();
      expect(logged.map((r) => [r.cell_id, r.outcome])).toEqual([
        [null, "unauthorized"],
        [null, "unauthorized"],
        ["cell-a", "ok"],
      ]);
      expect(gateway.summarizeCell("cell-b").requests).toBe(0);
    });

    it("refuses a request that repeats the Authorization header with different tokens", async () => {
      const a = gateway.mintCellToken("cell-a");
      const b = gateway.mintCellToken("cell-b");
      upstream.enqueue({ kind: "sse", body: buildStream() });
      const { connect } = await import("node:net");
      const socket = connect(join(dir, "gw.sock"));
      const payload = JSON.stringify(BODY);
      const answer = new Promise<string>((resolve) => {
        let text = "";
        socket.on("data", (c: Buffer) => {
          text += c.toString("utf8");
          if (text.includes("\r\n\r\n")) resolve(text);
        });
      });
      socket.write(
        `POST /v1/messages HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\nauthorization: Bearer ${a}\r\nauthorization: Bearer ${b}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
      expect((await answer).split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
      socket.destroy();
      expect(upstream.seen).toHaveLength(0);
    });
  });

  describe("the real key", () => {
    it("is removed from upstream response headers before they reach the client", async () => {
      const token = gateway.mintCellToken("cell-k");
      upstream.enqueue(
        { kind: "sse", body: buildStream(), headers: { "x-echo-key": `got ${REAL_KEY}` } },
        { kind: "json", status: 200, body: { type: "message", model: "m", usage: { input_tokens: 1, output_tokens: 1 } }, headers: { "x-echo-key": REAL_KEY } },
      );
      const streamed = await post(token);
      const plain = await post(token, { ...BODY, stream: false });
      for (const res of [streamed, plain]) {
        expect(res.status).toBe(200);
        expect(JSON.stringify(res.headers)).not.toContain(REAL_KEY);
        expect(res.headers["x-echo-key"]).toContain("[REDACTED]");
      }
    });

    it("is removed from a non-streaming upstream error body that echoes it", async () => {
      const token = gateway.mintCellToken("cell-k");
      upstream.enqueue({ kind: "json", status: 401, body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${REAL_KEY}` } } });
      const res = await post(token);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain(REAL_KEY);
      expect(JSON.parse(res.text)).toMatchObject({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key [REDACTED]" } });
      const [row] = await rows();
      expect(row).toMatchObject({ outcome: "http_error", http_status: 401, cell_id: "cell-k" });
      expect(await readFile(join(dir, "usage.jsonl"), "utf8")).not.toContain(REAL_KEY);
    });
    it("is removed together with any extra secret the caller names (the OpenAI key behind LiteLLM)", async () => {
      const openAiKey = "sk-proj-openai-behind-litellm-42";
      const extra = await startGateway({
        listen: { host: "127.0.0.1", port: 0 },
        upstream: { kind: "litellm", baseUrl: upstream.url, apiKey: "sk-master-0001", authScheme: "bearer" },
        usageLogPath: join(dir, "extra.jsonl"),
        redact: [openAiKey],
      });
      try {
        upstream.enqueue({ kind: "json", status: 500, body: { error: { message: `litellm: bad key ${openAiKey} / sk-master-0001` } }, headers: { "x-leak": openAiKey } });
        const res = await request(`${extra.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": extra.mintCellToken("c"), "content-type": "application/json" },
          body: JSON.stringify(BODY),
        });
        const text = await res.body.text();
        expect(res.statusCode).toBe(500);
        expect(text + JSON.stringify(res.headers)).not.toMatch(/sk-proj-openai|sk-master-0001/);
        expect(text).toContain("bad key [REDACTED] / [REDACTED]");
      } finally {
        await extra.close();
      }
    });
  });

  describe("where the upstream puts usage", () => {
    const startOnly = { input_tokens: 21, output_tokens: 3, cache_read_input_tokens: 4, cache_creation_input_tokens: 5 };
    it.each<[string, Record<string, unknown> | null, Record<string, unknown> | null, Record<string, number | null>]>([
      ["message_start only", startOnly, null, startOnly],
      [
        "message_delta only",
        null,
        { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 },
        { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 },
      ],
      ["neither", null, null, { input_tokens: null, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null }],
    ])("records usage from %s, null (never 0) for what no event carried", async (_name, start, delta, expected) => {
      const token = gateway.mintCellToken("cell-u");
      const events = buildEvents().map((e) => {
        if (e["type"] === "message_start") {
          const { usage: _drop, ...message } = e["message"] as Record<string, unknown>;
          return { ...e, message: start === null ? message : { ...message, usage: start } };
        }
        if (e["type"] === "message_delta") {
          const { usage: _drop, ...rest } = e;
          return delta === null ? rest : { ...rest, usage: delta };
        }
        return e;
      });
      upstream.enqueue({ kind: "sse", body: events.map((e) => frame(e)).join("") });
      expect((await post(token)).status).toBe(200);
      const [row] = await rows();
      expect(row?.usage).toEqual(expected);
      expect(row?.outcome).toBe("ok");
      if (start === null || delta === null) expect(row?.sse_conformant).toBe(false);
      const summary = gateway.summarizeCell("cell-u");
      if (expected["input_tokens"] === null) {
        expect(row?.cost_usd).toBeNull();
        // Spend happened but was not measured: the cell's cost is unknown, not 0.
        expect(summary).toMatchObject({ requests: 1, complete: false, costUsd: null });
      } else {
        expect(row?.cost_usd).toBeGreaterThan(0);
        expect(summary.costUsd).toBeCloseTo(row?.cost_usd ?? Number.NaN, 12);
      }
    });
    // A LiteLLM-style start (zeros, the real counts to come in message_delta) and a delta the gateway cannot fully
    // read: the unreadable fields are unknown, not the start's placeholder 0 priced as free.
    const zeroStart = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    it.each<[string, unknown, Record<string, number | null>]>([
      ["one negative field", { input_tokens: 46, output_tokens: -1 }, { input_tokens: 46, output_tokens: null, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }],
      ["one string field", { input_tokens: 46, output_tokens: "401" }, { input_tokens: 46, output_tokens: null, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }],
      ["one fractional field", { input_tokens: 46, output_tokens: 401, cache_read_input_tokens: 0.5 }, { input_tokens: 46, output_tokens: 401, cache_read_input_tokens: null, cache_creation_input_tokens: 0 }],
      ["a usage that is not an object", "401 tokens", { input_tokens: null, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null }],
    ])("records a message_delta usage with %s as unknown where unreadable, never message_start's 0", async (_name, delta, expected) => {
      const token = gateway.mintCellToken("cell-bad-delta");
      const events = buildEvents({ startUsage: zeroStart }).map((e) => (e["type"] === "message_delta" ? { ...e, usage: delta } : e));
      upstream.enqueue({ kind: "sse", body: events.map((e) => frame(e)).join("") });
      expect((await post(token)).status).toBe(200);
      const [row] = await rows();
      expect(row?.usage).toEqual(expected);
      expect(row).toMatchObject({ outcome: "ok", cost_usd: null, priced_model: null });
      expect(gateway.summarizeCell("cell-bad-delta")).toMatchObject({ complete: false, costUsd: null });
    });
  });

  describe("configuration", () => {
    it("presents the key as Bearer for a LiteLLM upstream and listens on loopback TCP", async () => {
      const tcp = await startGateway({
        listen: { host: "127.0.0.1", port: 0 },
        upstream: { kind: "litellm", baseUrl: upstream.url, apiKey: "sk-master", authScheme: "bearer" },
        usageLogPath: join(dir, "tcp.jsonl"),
      });
      try {
        expect(tcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        upstream.enqueue({ kind: "sse", body: buildStream({ model: "gpt-4.1" }) });
        const res = await request(`${tcp.url}/v1/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${tcp.mintCellToken("c")}` },
          body: JSON.stringify({ ...BODY, model: "gpt-4.1" }),
        });
        await res.body.text();
        expect(upstream.seen[0]?.headers["authorization"]).toBe("Bearer sk-master");
        expect(upstream.seen[0]?.headers["x-api-key"]).toBeUndefined();
        await tcp.flush();
        const [row] = await readUsageLog(join(dir, "tcp.jsonl"));
        expect(row).toMatchObject({ upstream: "litellm", model_served: "gpt-4.1", priced_model: "openai/gpt-4.1" });
      } finally {
        await tcp.close();
      }
    });

    it("throws GATEWAY_LISTEN_FAILED for an existing socket path and GATEWAY_CONFIG_INVALID for a bad upstream", async () => {
      const taken = join(dir, "taken.sock");
      await writeFile(taken, "");
      const listenError: unknown = await startGateway({
        listen: { socketPath: taken },
        upstream: { kind: "scripted", baseUrl: upstream.url },
        usageLogPath: join(dir, "x.jsonl"),
      }).catch((e: unknown) => e);
      expect(isGatewayError(listenError) && listenError.code).toBe("GATEWAY_LISTEN_FAILED");
      const configError: unknown = await startGateway({
        listen: { socketPath: join(dir, "y.sock") },
        upstream: { kind: "anthropic", baseUrl: "http://user:pw@127.0.0.1:1" },
        usageLogPath: join(dir, "y.jsonl"),
      }).catch((e: unknown) => e);
      expect(isGatewayError(configError) && configError.code).toBe("GATEWAY_CONFIG_INVALID");
    });

    it.each([
      ["requestTimeoutMs", Number.NaN],
      ["requestTimeoutMs", 0],
      ["maxRequestBytes", -1],
      ["maxRequestBytes", Number.POSITIVE_INFINITY],
    ] as const)("throws GATEWAY_CONFIG_INVALID for %s = %s before listening", async (name, value) => {
      const socketPath = join(dir, "bad-limit.sock");
      const error: unknown = await startGateway({
        listen: { socketPath },
        upstream: { kind: "scripted", baseUrl: upstream.url },
        usageLogPath: join(dir, "bad-limit.jsonl"),
        [name]: value,
      }).catch((e: unknown) => e);
      expect(isGatewayError(error) && error.code).toBe("GATEWAY_CONFIG_INVALID");
      expect((error as Error).message).toContain(name);
      await expect(readFile(join(dir, "bad-limit.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
    });
  });
});
