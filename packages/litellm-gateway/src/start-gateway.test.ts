import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server, ServerResponse } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGatewayError } from "./errors.js";
import { startGateway } from "./start-gateway.js";
import type { Gateway } from "./start-gateway.js";
import { readUsageLog } from "./usage-log.js";

const REAL_KEY = "sk-ant-real-provider-key-0123456789";
const BODY = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });

interface Seen {
  readonly headers: IncomingHttpHeaders;
}

let dir: string;
let upstream: Server;
let upstreamUrl: string;
let seen: Seen[];
let answer: (res: ServerResponse) => void;
let gateway: Gateway;
let socketPath: string;
let client: Agent;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-unit-"));
  seen = [];
  answer = (res) => {
    res.writeHead(200, { "content-type": "application/json", "request-id": "req_1" });
    res.end(JSON.stringify({ type: "message", id: "msg_1", model: "claude-sonnet-4-5", usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }));
  };
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ headers: req.headers });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", () => resolve()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  socketPath = join(dir, "gw.sock");
  gateway = await startGateway({
    listen: { socketPath },
    upstream: { kind: "anthropic", baseUrl: upstreamUrl, apiKey: REAL_KEY },
    usageLogPath: join(dir, "usage.jsonl"),
  });
  client = new Agent({ connect: { socketPath } });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function rows() {
  await gateway.flush();
  return readUsageLog(join(dir, "usage.jsonl"));
}

/** Sends raw bytes on the gateway socket and returns everything it answered until it closed (or `waitMs` passed). */
function rawExchange(parts: readonly string[], between: () => void = () => undefined, waitMs = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let reply = "";
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString("utf8");
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(reply);
    });
    socket.on("connect", () => {
      const [first, ...rest] = parts;
      socket.write(first ?? "");
      setTimeout(() => {
        between();
        for (const part of rest) socket.write(part);
      }, 100);
    });
  });
}

describe("startGateway (unit)", () => {
  it("refuses a request whose token was revoked while its body was still arriving, and never asks the upstream", async () => {
    const token = gateway.mintCellToken("cell-a");
    const head = `POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\nconnection: close\r\n\r\n`;
    const reply = await rawExchange([head + BODY.slice(0, 10), BODY.slice(10)], () => gateway.revokeCell("cell-a"));
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(seen).toHaveLength(0);
    const [row] = await rows();
    expect(row).toMatchObject({ outcome: "unauthorized", http_status: 401 });
  });

  it("does not forward a client's Expect header, so a client cannot make a served request look like an upstream outage", async () => {
    const token = gateway.mintCellToken("cell-a");
    const head = `POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${token}\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\nconnection: close\r\n\r\n`;
    const reply = await rawExchange([head, BODY]);
    expect(reply).toContain("HTTP/1.1 200 ");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers["expect"]).toBeUndefined();
    const [row] = await rows();
    expect(row).toMatchObject({ outcome: "ok", http_status: 200 });
    expect(gateway.summarizeCell("cell-a").upstreamFailedRequests).toBe(0);
  });

  it("keeps the upstream key out of usage rows and bounds every string a client or upstream puts there", async () => {
    answer = (res) => {
      res.writeHead(200, { "content-type": "application/json", "request-id": `req_${REAL_KEY}_${"x".repeat(4_000)}` });
      res.end(JSON.stringify({ type: "message", id: `msg_${REAL_KEY}`, model: `claude-${REAL_KEY}-${"m".repeat(100_000)}`, usage: { input_tokens: 1, output_tokens: 1 } }));
    };
    const token = gateway.mintCellToken("cell-a");
    const res = await request("http://localhost/v1/messages", {
      method: "POST",
      dispatcher: client,
      headers: { "x-api-key": token, "content-type": "application/json" },
      body: JSON.stringify({ model: `claude-${"y".repeat(1_000_000)}`, messages: [] }),
    });
    await res.body.text();
    const [row] = await rows();
    expect(row?.outcome).toBe("ok");
    expect(JSON.stringify(row)).not.toContain(REAL_KEY);
    for (const value of [row?.upstream_request_id, row?.model_served, row?.model_requested, row?.message_id]) {
      expect(value).not.toBeNull();
      expect(value?.length).toBeLessThanOrEqual(200);
    }
    expect(row?.cost_usd).toBeNull();
  });

  it("refuses a plain-http upstream that is not loopback, so the key never crosses a network in clear", async () => {
    for (const baseUrl of ["http://10.0.0.1:4000", "http://example.com", "http://127.0.0.1.example.com"]) {
      const error: unknown = await startGateway({
        listen: { socketPath: join(dir, "other.sock") },
        upstream: { kind: "anthropic-compatible", baseUrl, apiKey: REAL_KEY },
        usageLogPath: join(dir, "other.jsonl"),
      }).then(async (started) => {
        await started.close();
        return null;
      }, (caught: unknown) => caught);
      expect(isGatewayError(error) && error.code).toBe("GATEWAY_CONFIG_INVALID");
      expect(String(error)).not.toContain(REAL_KEY);
    }
    for (const baseUrl of ["http://localhost:1", "http://[::1]:1", "https://api.example.com"]) {
      const started = await startGateway({
        listen: { socketPath: join(dir, "ok.sock") },
        upstream: { kind: "anthropic-compatible", baseUrl, apiKey: REAL_KEY },
        usageLogPath: join(dir, "ok.jsonl"),
      });
      await started.close();
    }
  });
});
