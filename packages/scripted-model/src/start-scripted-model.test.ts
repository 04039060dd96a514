import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import stableStringify from "fast-json-stable-stringify";
import { Agent, fetch as undiciFetch } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestJson } from "@wfbench/digest";
import { deepInputYaml, scriptWithInput } from "../test/support/deep-yaml.js";
import { isScriptedModelError } from "./errors.js";
import { parseScript } from "./load-script.js";
import type { RequestLogEntry } from "./request-log.js";
import type { Script, ScriptInput } from "./schema.js";
import { MAX_TOOL_INPUT_DEPTH } from "./script-limits.js";
import { startScriptedModel, type ScriptedModelOptions, type ScriptedModelServer } from "./start-scripted-model.js";

function buildScript(input: ScriptInput): Script {
  const result = parseScript(JSON.stringify(input), "test-inline.json");
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const toolTurn = {
  content: [
    { type: "text" as const, text: "Let me look — ünïcode 🚀 included." },
    { type: "tool_use" as const, name: "Bash", input: { command: "ls -la", description: "list" } },
  ],
  usage: { input_tokens: 120, output_tokens: 33, cache_read_input_tokens: 7, cache_creation_input_tokens: 11 },
};
const finalTurn = {
  content: [{ type: "text" as const, text: "All done." }],
  usage: { input_tokens: 200, output_tokens: 5 },
};

const baseScript: ScriptInput = {
  version: 1,
  trajectories: [
    { name: "by-system", match: { contains: "SYSTEM-MARK", in: "system" }, turns: [finalTurn] },
    { name: "by-user", match: { contains: "USER-MARK", in: "first_user" }, turns: [toolTurn, finalTurn] },
    { name: "by-regex", match: { regex: "ticket #\\d{4}\\b" }, turns: [{ ...finalTurn, content: [{ type: "text", text: "regex" }] }] },
  ],
};

interface Harness {
  server: ScriptedModelServer;
  client: Anthropic;
  dir: string;
  logPath: string;
}

let harness: Harness | null = null;
let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "scripted-model-server-"));
});

afterEach(async () => {
  await harness?.server.close();
  harness = null;
  await rm(dir, { recursive: true, force: true });
});

async function start(input: ScriptInput = baseScript, extra: Partial<ScriptedModelOptions> = {}): Promise<Harness> {
  const logPath = join(dir, "requests.jsonl");
  const server = await startScriptedModel({ script: buildScript(input), listen: { host: "127.0.0.1", port: 0 }, requestLogPath: logPath, ...extra });
  const client = new Anthropic({ apiKey: "sk-test-SECRET-VALUE-123", baseURL: server.baseUrl, maxRetries: 0 });
  harness = { server, client, dir, logPath };
  return harness;
}

function userAsks(text: string): Anthropic.MessageParam[] {
  return [{ role: "user", content: [{ type: "text", text: "<system-reminder>noise</system-reminder>" }, { type: "text", text }] }];
}

async function rawPost(baseUrl: string, body: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${baseUrl}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-raw-SECRET", authorization: "Bearer BEARER-SECRET-888" },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function sseEvents(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const event = /^event: (.+)$/m.exec(frame)?.[1] ?? "";
      const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? "null") as Record<string, unknown>;
      return { event, data };
    });
}

// Writes raw bytes (optionally leaving the socket open) and collects the reply until the server closes the connection.
// The guard fails the test in seconds instead of letting a hang run into vitest's 60 s timeout.
function rawExchange(baseUrl: string, payload: string, guardMs = 5_000): Promise<{ statusLine: string; body: string }> {
  const port = Number(new URL(baseUrl).port);
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(payload));
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete reply within ${guardMs} ms; got ${JSON.stringify(data.slice(0, 200))}`));
    }, guardMs);
    socket.setEncoding("utf8").on("data", (chunk: string) => (data += chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(guard);
      const split = data.indexOf("\r\n\r\n");
      resolve({ statusLine: data.split("\r\n")[0] ?? "", body: split < 0 ? "" : data.slice(split + 4) });
    });
  });
}

// Checks the measured SSE contract frame by frame and returns what a consumer would rebuild from it.
function checkSseContract(text: string): { id: string; blocks: Array<Record<string, unknown>>; usage: Record<string, number>; stopReason: unknown } {
  expect(text.endsWith("\n\n")).toBe(true);
  const frames = text.slice(0, -2).split("\n\n");
  for (const frame of frames) expect(frame).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
  const events = sseEvents(text);
  for (const { event, data } of events) expect(data["type"]).toBe(event);
  expect(events[0]?.event).toBe("message_start");
  expect(events.filter((e) => e.event === "message_start")).toHaveLength(1);
  expect(events.at(-1)?.event).toBe("message_stop");
  expect(events.filter((e) => e.event === "message_stop")).toHaveLength(1);
  expect(events.at(-2)?.event).toBe("message_delta");
  const message = events[0]?.data["message"] as Record<string, unknown>;
  expect(Object.keys(message).sort()).toEqual(["content", "id", "model", "role", "stop_reason", "stop_sequence", "type", "usage"]);
  expect(message).toMatchObject({ type: "message", role: "assistant", content: [], stop_reason: null, stop_sequence: null });
  expect(message["id"]).toMatch(/^msg_/);
  const startUsage = message["usage"] as Record<string, number>;
  expect(Object.keys(startUsage).sort()).toEqual(["cache_creation_input_tokens", "cache_read_input_tokens", "input_tokens", "output_tokens"]);
  const blocks: Array<Record<string, unknown>> = [];
  const partialJson: string[] = [];
  let open: number | null = null;
  for (const { event, data } of events.slice(1, -2)) {
    const index = data["index"];
    if (event === "content_block_start") {
      expect(open).toBeNull();
      expect(index).toBe(blocks.length);
      const block = { ...(data["content_block"] as Record<string, unknown>) };
      if (block["type"] === "text") expect(block).toEqual({ type: "text", text: "" });
      else {
        expect(Object.keys(block).sort()).toEqual(["id", "input", "name", "type"]);
        expect(block["input"]).toEqual({});
        expect(block["id"]).toMatch(/^toolu_/);
      }
      blocks.push(block);
      partialJson.push("");
      open = index as number;
    } else if (event === "content_block_delta") {
      expect(index).toBe(open);
      const delta = data["delta"] as Record<string, string>;
      const block = blocks[open ?? -1] as Record<string, unknown>;
      if (block["type"] === "text") {
        expect(delta["type"]).toBe("text_delta");
        block["text"] = `${String(block["text"])}${delta["text"]}`;
      } else {
        expect(delta["type"]).toBe("input_json_delta");
        partialJson[open ?? -1] += delta["partial_json"] ?? "";
      }
    } else {
      expect(event).toBe("content_block_stop");
      expect(data).toEqual({ type: "content_block_stop", index: open });
      open = null;
    }
  }
  expect(open).toBeNull();
  blocks.forEach((block, i) => {
    if (block["type"] === "tool_use") block["input"] = JSON.parse(partialJson[i] ?? "") as unknown;
  });
  const delta = events.at(-2)?.data as { delta: Record<string, unknown>; usage: Record<string, number> };
  expect(Object.keys(delta.delta).sort()).toEqual(["stop_reason", "stop_sequence"]);
  expect(delta.delta["stop_sequence"]).toBeNull();
  // message_delta's figures override message_start's, field by field.
  return { id: String(message["id"]), blocks, usage: { ...startUsage, ...delta.usage }, stopReason: delta.delta["stop_reason"] };
}

describe("startScriptedModel", () => {
  describe("streaming replies", () => {
    it("are accepted by the strict SDK stream accumulator with the scripted blocks, usage and stop reason", async () => {
      const { client, server } = await start();
      const stream = client.messages.stream({ model: "claude-test", max_tokens: 100, messages: userAsks("please USER-MARK") });
      const message = await stream.finalMessage();
      expect(message.content).toHaveLength(2);
      expect(message.content[0]).toMatchObject({ type: "text", text: "Let me look — ünïcode 🚀 included." });
      expect(message.content[1]).toMatchObject({ type: "tool_use", name: "Bash", input: { command: "ls -la", description: "list" } });
      expect(message.stop_reason).toBe("tool_use");
      expect(message.model).toBe("claude-test");
      expect(message.usage).toMatchObject(toolTurn.usage);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({ trajectory: "by-user", turn: 0, attempt: 1, stream: true, model: "claude-test" });
    });

    it("emits the measured event order with content_block_stop per block and a request-id header", async () => {
      const { server } = await start();
      const reply = await rawPost(server.baseUrl, { model: "m", stream: true, max_tokens: 5, messages: userAsks("USER-MARK") });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(reply.headers.get("request-id")).toBe(server.requests[0]?.request_id);
      const events = sseEvents(reply.text);
      for (const { event, data } of events) expect(data["type"]).toBe(event);
      const order = events.map((e) => e.event).filter((e) => e !== "content_block_delta");
      expect(order).toEqual([
        "message_start",
        "content_block_start",
        "content_block_stop",
        "content_block_start",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      // Usage sits in message_delta by default; message_start reports zeros.
      const startEvent = events[0]?.data["message"] as { usage: Record<string, number> };
      expect(startEvent.usage["input_tokens"]).toBe(0);
      const delta = events.find((e) => e.event === "message_delta")?.data as { usage: Record<string, number> };
      expect(delta.usage).toEqual(toolTurn.usage);
    });

    it("puts input and cache figures in message_start when usage_at says so", async () => {
      const { client, server } = await start({
        version: 1,
        trajectories: [{ name: "s", match: { contains: "X" }, turns: [{ ...toolTurn, usage_at: "message_start" }] }],
      });
      const reply = await rawPost(server.baseUrl, { model: "m", stream: true, max_tokens: 5, messages: userAsks("X") });
      const events = sseEvents(reply.text);
      const startEvent = events[0]?.data["message"] as { usage: Record<string, number> };
      expect(startEvent.usage).toMatchObject({ input_tokens: 120, cache_read_input_tokens: 7, cache_creation_input_tokens: 11 });
      const delta = events.find((e) => e.event === "message_delta")?.data as { usage: Record<string, number> };
      expect(delta.usage).toEqual({ output_tokens: 33 });
      const message = await client.messages.stream({ model: "m", max_tokens: 5, messages: userAsks("X") }).finalMessage();
      expect(message.usage).toMatchObject(toolTurn.usage);
    });
    it("honours the SSE contract frame by frame: indices, deltas that rebuild each block, usage override, fresh ids", async () => {
      const { server } = await start({
        version: 1,
        trajectories: [
          {
            name: "edge",
            match: { contains: "EDGE" },
            turns: [
              {
                content: [
                  { type: "text", text: "" },
                  { type: "tool_use", name: "Read", input: {} },
                  { type: "text", text: "line one\nline \"two\" — ✓ 🚀" },
                  { type: "tool_use", name: "Write", input: { file_path: "a b.txt", content: "x\ny", nested: { list: [1, null, true] } } },
                ],
                usage: { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5 },
              },
            ],
          },
        ],
      });
      const body = { model: "m", stream: true, max_tokens: 5, messages: userAsks("EDGE") };
      const first = checkSseContract((await rawPost(server.baseUrl, body)).text);
      const second = checkSseContract((await rawPost(server.baseUrl, body)).text);
      expect(first.blocks).toEqual([
        { type: "text", text: "" },
        { type: "tool_use", id: expect.stringMatching(/^toolu_/) as unknown, name: "Read", input: {} },
        { type: "text", text: "line one\nline \"two\" — ✓ 🚀" },
        { type: "tool_use", id: expect.stringMatching(/^toolu_/) as unknown, name: "Write", input: { file_path: "a b.txt", content: "x\ny", nested: { list: [1, null, true] } } },
      ]);
      expect(first.blocks[1]?.["id"]).not.toBe(first.blocks[3]?.["id"]);
      expect(first.usage).toEqual({ input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 });
      expect(first.stopReason).toBe("tool_use");
      // Message ids are fresh per request; tool ids are stable so a retried turn repeats them.
      expect(second.id).not.toBe(first.id);
      expect(second.blocks).toEqual(first.blocks);
    });

    it("keeps the contract when usage sits in message_start, and for a text-only turn", async () => {
      const { server } = await start({
        version: 1,
        trajectories: [{ name: "s", match: { contains: "X" }, turns: [{ ...toolTurn, usage_at: "message_start" }] }],
      });
      const withTools = checkSseContract((await rawPost(server.baseUrl, { model: "m", stream: true, max_tokens: 5, messages: userAsks("X") })).text);
      expect(withTools.usage).toEqual(toolTurn.usage);
      const { server: other } = await start();
      const textOnly = checkSseContract((await rawPost(other.baseUrl, { model: "m", stream: true, max_tokens: 5, system: "SYSTEM-MARK", messages: userAsks("q") })).text);
      expect(textOnly.blocks).toEqual([{ type: "text", text: "All done." }]);
      expect(textOnly.stopReason).toBe("end_turn");
      await server.close();
    });
  });

  describe("non-streaming replies", () => {
    it("returns exactly the Anthropic message shape with application/json and a request-id", async () => {
      const { server } = await start();
      const reply = await rawPost(server.baseUrl, { model: "claude-x", stream: false, max_tokens: 5, messages: userAsks("USER-MARK") });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.headers.get("request-id")).toBe(server.requests[0]?.request_id);
      expect(JSON.parse(reply.text)).toEqual({
        id: expect.stringMatching(/^msg_/) as unknown,
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [
          { type: "text", text: toolTurn.content[0]?.text },
          { type: "tool_use", id: expect.stringMatching(/^toolu_/) as unknown, name: "Bash", input: toolTurn.content[1]?.type === "tool_use" ? toolTurn.content[1].input : null },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: toolTurn.usage,
      });
    });

    it("return a JSON message the SDK parses, also on the beta route", async () => {
      const { client, server } = await start();
      const message = await client.messages.create({ model: "m1", max_tokens: 10, messages: userAsks("USER-MARK") });
      expect(message.type).toBe("message");
      expect(message.content.map((block) => block.type)).toEqual(["text", "tool_use"]);
      expect(message.usage).toMatchObject(toolTurn.usage);
      const beta = await client.beta.messages.create({ model: "m1", max_tokens: 10, messages: userAsks("USER-MARK") });
      expect(beta.content.map((block) => block.type)).toEqual(["text", "tool_use"]);
      expect(server.requests.map((entry) => [entry.stream, entry.path])).toEqual([
        [false, "/v1/messages"],
        [false, "/v1/messages"],
      ]);
      // The same turn served twice keeps the same tool_use id: retries stay consistent.
      expect(beta.content[1]).toMatchObject({ id: (message.content[1] as Anthropic.ToolUseBlock).id });
    });
  });

  describe("trajectory selection", () => {
    it("matches on the system prompt, the first user message or a regex, in script order", async () => {
      const { client, server } = await start();
      await client.messages.create({ model: "m", max_tokens: 5, system: "You are SYSTEM-MARK.", messages: userAsks("USER-MARK too") });
      await client.messages.create({ model: "m", max_tokens: 5, system: "plain", messages: userAsks("USER-MARK") });
      const viaRegex = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("about ticket #1234 please") });
      expect(viaRegex.content[0]).toMatchObject({ type: "text", text: "regex" });
      expect(server.requests.map((entry) => entry.trajectory)).toEqual(["by-system", "by-user", "by-regex"]);
    });

    it("does not match a system-only marker found in the user message", async () => {
      const { client } = await start();
      await expect(client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("SYSTEM-MARK in the prompt") })).rejects.toMatchObject({
        status: 400,
      });
    });

    it("chooses the turn by the number of assistant messages already in the conversation", async () => {
      const { client, server } = await start();
      const first = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("USER-MARK") });
      const toolUse = first.content[1] as Anthropic.ToolUseBlock;
      const second = await client.messages.create({
        model: "m",
        max_tokens: 5,
        messages: [
          ...userAsks("USER-MARK"),
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "file-a" }] },
        ],
      });
      expect(second.content).toEqual([{ type: "text", text: "All done." }]);
      expect(second.stop_reason).toBe("end_turn");
      expect(server.requests.map((entry) => entry.turn)).toEqual([0, 1]);
    });
  });

  describe("refusals", () => {
    it("answers a body that stops short of its Content-Length with a quick 400, logged, instead of hanging", async () => {
      const { server } = await start(baseScript, { stallTimeoutMs: 200 });
      const reply = await rawExchange(
        server.baseUrl,
        'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":',
      );
      expect(reply.statusLine).toBe("HTTP/1.1 400 Bad Request");
      const body = JSON.parse(reply.body) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("invalid_request_error");
      expect(body.error.message).toMatch(/incomplete.*9 of 1000 bytes/);
      expect(server.requests.map((entry) => [entry.outcome.kind, entry.outcome.status])).toEqual([["bad_request", 400]]);
    });

    it("answers a chunked body that never ends with a quick 400", async () => {
      const { server } = await start(baseScript, { stallTimeoutMs: 200 });
      const reply = await rawExchange(server.baseUrl, 'POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"mod\r\n');
      expect(reply.statusLine).toBe("HTTP/1.1 400 Bad Request");
      expect(reply.body).toMatch(/incomplete.*5 bytes/);
    });

    it("drops a client whose headers never finish instead of waiting for Node's 60 s default", async () => {
      const { server } = await start(baseScript, { stallTimeoutMs: 200 });
      const reply = await rawExchange(server.baseUrl, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Le");
      expect(reply.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    });

    it("answers an oversized body with 413 request_too_large before reading it all", async () => {
      const { server } = await start();
      const response = await fetch(`${server.baseUrl}/v1/messages`, { method: "POST", body: Buffer.alloc(33 * 1024 * 1024, 0x20) });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ type: "error", error: { type: "request_too_large" } });
      expect(server.requests.map((entry) => entry.outcome)).toEqual([{ kind: "bad_request", status: 413, message: expect.stringMatching(/exceeds/) as unknown }]);
    });

    it("answers a request target that is not a valid URL with a logged 400, not a 500", async () => {
      const { server } = await start();
      const reply = await rawExchange(server.baseUrl, "POST http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}");
      expect(reply.statusLine).toBe("HTTP/1.1 400 Bad Request");
      expect(JSON.parse(reply.body)).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining("http://[") as unknown } });
      expect(server.requests.map((entry) => [entry.path, entry.outcome.kind, entry.outcome.status])).toEqual([["http://[", "bad_request", 400]]);
    });

    it("answers a GET and a long unknown path at once with 404, echoing at most 200 characters of the path", async () => {
      const { server } = await start();
      const get = await fetch(`${server.baseUrl}/v1/messages`);
      expect(get.status).toBe(404);
      expect(await get.json()).toMatchObject({ error: { type: "not_found_error", message: expect.stringContaining("GET /v1/messages") as unknown } });
      const longPath = `/${"p".repeat(5000)}`;
      const other = await rawPost(`${server.baseUrl}${longPath}`.replace("/v1/messages", ""), {});
      expect(other.status).toBe(404);
      const message = (JSON.parse(other.text) as { error: { message: string } }).error.message;
      expect(message).toContain(`${longPath.slice(0, 200)}…`);
      expect(message).not.toContain(longPath.slice(0, 201));
    });

    it("answers an unmatched request at once with 400 naming the prompt prefix (first 200 chars)", async () => {
      const { client, server } = await start();
      const prompt = `nobody scripted this ${"x".repeat(400)}`;
      const error = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks(prompt) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      const apiError = error as APIError;
      expect(apiError.status).toBe(400);
      expect(apiError.type).toBe("invalid_request_error");
      expect(apiError.apiMessage).toContain(prompt.slice(0, 200));
      expect(apiError.apiMessage).not.toContain(prompt.slice(0, 201));
      expect(server.requests[0]?.outcome).toEqual({ kind: "unmatched", status: 400, prompt_prefix: `${prompt.slice(0, 200)}…` });
    });

    it("answers a position beyond the script with 400 naming the trajectory and position", async () => {
      const { client } = await start();
      const error = (await client.messages
        .create({
          model: "m",
          max_tokens: 5,
          messages: [
            ...userAsks("USER-MARK"),
            { role: "assistant", content: "a" },
            { role: "user", content: "b" },
            { role: "assistant", content: "c" },
            { role: "user", content: "d" },
          ],
        })
        .catch((e: unknown) => e)) as APIError;
      expect(error.status).toBe(400);
      expect(error.apiMessage).toContain('"by-user"');
      expect(error.apiMessage).toContain("position 2");
    });

    it("answers bodies that are not JSON or not Messages requests with 400, other routes with 404", async () => {
      const { server } = await start();
      const notJson = await fetch(`${server.baseUrl}/v1/messages`, { method: "POST", body: "{nope" });
      expect(notJson.status).toBe(400);
      const notMessages = await rawPost(server.baseUrl, { model: "m", messages: [] });
      expect(notMessages.status).toBe(400);
      expect(JSON.parse(notMessages.text)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      const counting = await rawPost(`${server.baseUrl}/v1/messages/count_tokens`.replace("/v1/messages", ""), {});
      expect(counting.status).toBe(404);
      expect(server.requests.map((entry) => entry.outcome.kind)).toEqual(["bad_request", "bad_request", "not_found"]);
    });

    it("answers a body holding 1e400 with a 400 naming the number, instead of digesting it as null", async () => {
      const { server } = await start();
      const body = `{"model":"m","max_tokens":5,"temperature":1e400,"messages":${JSON.stringify(userAsks("SYSTEM-MARK USER-MARK"))}}`;
      const response = await fetch(`${server.baseUrl}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Infinity is not a JSON number \(at temperature\)/);
      expect(server.requests[0]).toMatchObject({ body_sha256: createHash("sha256").update(body).digest("hex"), outcome: { kind: "bad_request", status: 400 } });
      // The same body with null in its place is an ordinary request: the two no longer share a digest.
      const fine = await fetch(`${server.baseUrl}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: body.replace("1e400", "null") });
      expect(fine.status).toBe(200);
    });

    it("answers a body nested too deeply to digest with a 400 that says so, not that it is not JSON", async () => {
      const { server } = await start();
      const deep = `{"model":"m","messages":[{"role":"user","content":"x"}],"metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
      const response = await fetch(`${server.baseUrl}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: deep });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/nests too deeply to digest/);
      expect(server.requests[0]?.outcome).toMatchObject({ kind: "bad_request", status: 400 });
    });
  });

  describe("error injection", () => {
    it("answers the first N attempts at a position with the HTTP error, then the normal reply", async () => {
      const { client, server } = await start({
        version: 1,
        trajectories: [
          {
            name: "flaky",
            match: { contains: "F" },
            turns: [{ ...finalTurn, faults: [{ kind: "http_error", status: 529, times: 2, retry_after_s: 0 }] }],
          },
        ],
      });
      for (let i = 0; i < 2; i += 1) {
        const error = (await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("F") }).catch((e: unknown) => e)) as APIError;
        expect(error.status).toBe(529);
        expect(error.type).toBe("overloaded_error");
        expect(error.headers?.get("retry-after")).toBe("0");
      }
      const message = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("F") });
      expect(message.content).toEqual([{ type: "text", text: "All done." }]);
      expect(server.requests.map((entry) => [entry.attempt, entry.outcome.kind])).toEqual([
        [1, "http_error"],
        [2, "http_error"],
        [3, "reply"],
      ]);
    });

    it("lets the SDK's own retries reach the normal reply", async () => {
      const { server } = await start({
        version: 1,
        trajectories: [
          { name: "flaky", match: { contains: "F" }, turns: [{ ...finalTurn, faults: [{ kind: "http_error", status: 500, retry_after_s: 0 }] }] },
        ],
      });
      const retrying = new Anthropic({ apiKey: "k", baseURL: server.baseUrl, maxRetries: 2 });
      const message = await retrying.messages.create({ model: "m", max_tokens: 5, messages: userAsks("F") });
      expect(message.stop_reason).toBe("end_turn");
      expect(server.requests.map((entry) => entry.outcome.status)).toEqual([500, 200]);
    });

    it("sends event: error mid-stream after the given blocks, and serves the non-streaming fallback normally", async () => {
      const { client, server } = await start({
        version: 1,
        trajectories: [
          {
            name: "mid",
            match: { contains: "M" },
            turns: [{ ...toolTurn, faults: [{ kind: "stream_error", times: 2, after_blocks: 1, error_type: "overloaded_error", message: "Overloaded" }] }],
          },
        ],
      });
      const raw = await rawPost(server.baseUrl, { model: "m", stream: true, max_tokens: 5, messages: userAsks("M") });
      const events = sseEvents(raw.text);
      expect(events.map((e) => e.event).filter((e) => e !== "content_block_delta")).toEqual([
        "message_start",
        "content_block_start",
        "content_block_stop",
        "error",
      ]);
      expect(events.at(-1)?.data).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      const streamed = client.messages.stream({ model: "m", max_tokens: 5, messages: userAsks("M") });
      await expect(streamed.finalMessage()).rejects.toThrow(/Overloaded/);
      // Third attempt: the fault is spent, and a non-streaming request is never given SSE.
      const fallback = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("M") });
      expect(fallback.content).toHaveLength(2);
      expect(server.requests.map((entry) => entry.outcome.kind)).toEqual(["stream_error", "stream_error", "reply"]);
    });

    it("serves a stream-only fault to a non-streaming attempt as the normal reply, still counting the attempt", async () => {
      const { client, server } = await start({
        version: 1,
        trajectories: [{ name: "mid", match: { contains: "M" }, turns: [{ ...finalTurn, faults: [{ kind: "stream_error" }] }] }],
      });
      const message = await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("M") });
      expect(message.content).toEqual([{ type: "text", text: "All done." }]);
      const second = await client.messages.stream({ model: "m", max_tokens: 5, messages: userAsks("M") }).finalMessage();
      expect(second.content).toEqual([{ type: "text", text: "All done." }]);
      expect(server.requests.map((entry) => [entry.attempt, entry.outcome.kind])).toEqual([
        [1, "reply"],
        [2, "reply"],
      ]);
    });

    it("omits every content_block_stop on the faulted attempt only", async () => {
      const { server } = await start({
        version: 1,
        trajectories: [{ name: "nostop", match: { contains: "N" }, turns: [{ ...toolTurn, faults: [{ kind: "omit_content_block_stop" }] }] }],
      });
      const body = { model: "m", stream: true, max_tokens: 5, messages: userAsks("N") };
      const faulted = sseEvents((await rawPost(server.baseUrl, body)).text).map((e) => e.event);
      expect(faulted).not.toContain("content_block_stop");
      expect(faulted).toContain("message_stop");
      const healthy = sseEvents((await rawPost(server.baseUrl, body)).text).map((e) => e.event);
      expect(healthy.filter((e) => e === "content_block_stop")).toHaveLength(2);
      expect(server.requests.map((entry) => entry.outcome.kind)).toEqual(["omit_content_block_stop", "reply"]);
    });

    it("delays the reply by the turn delay plus a delay fault, and close() cuts a pending delay", async () => {
      const { client, server } = await start({
        version: 1,
        trajectories: [
          {
            name: "slow",
            match: { contains: "S" },
            turns: [{ ...finalTurn, delay_ms: 150, faults: [{ kind: "delay", ms: 60_000 }] }],
          },
        ],
      });
      const hanging = client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("S") }).catch((e: unknown) => e);
      await expect.poll(() => server.requests.length).toBe(1);
      expect(server.requests[0]?.delay_ms).toBe(60_150);
      await server.close();
      expect(await hanging).toBeInstanceOf(Error);

      const second = await startScriptedModel({
        script: buildScript({
          version: 1,
          trajectories: [{ name: "slow", match: { contains: "S" }, turns: [{ ...finalTurn, delay_ms: 150 }] }],
        }),
        listen: { host: "127.0.0.1", port: 0 },
      });
      try {
        const started = performance.now();
        const reply = await rawPost(second.baseUrl, { model: "m", max_tokens: 5, messages: userAsks("S") });
        expect(reply.status).toBe(200);
        expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      } finally {
        await second.close();
      }
    });

    it("counts attempts per CLI session header, so parallel sessions each get their own faults", async () => {
      const { server } = await start({
        version: 1,
        trajectories: [{ name: "flaky", match: { contains: "F" }, turns: [{ ...finalTurn, faults: [{ kind: "http_error", status: 529 }] }] }],
      });
      const post = (session: string): Promise<number> =>
        fetch(`${server.baseUrl}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-claude-code-session-id": session },
          body: JSON.stringify({ model: "m", max_tokens: 5, messages: userAsks("F") }),
        }).then((response) => response.status);
      expect([await post("a"), await post("b"), await post("a")]).toEqual([529, 529, 200]);
    });
  });

  describe("request log", () => {
    it("redacts credentials found in the values of innocently named headers and in a logged prompt prefix", async () => {
      const { server, logPath } = await start();
      const secrets = ["sk-ant-api03-AbCdEfGh_123", "ghp_abcdefgh12345", "hunter2pass", "opaqueBearer.value"];
      const response = await fetch(`${server.baseUrl}/v1/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-custom": `note ${secrets[0]} end`,
          "x-gh": secrets[1] ?? "",
          referer: `https://user:${secrets[2]}@example.invalid/path`,
          "x-upstream": `Bearer ${secrets[3]}`,
          "x-plain": "visible-value",
        },
        body: JSON.stringify({ model: "m", max_tokens: 5, messages: userAsks(`nobody scripted this, key ${secrets[0]}`) }),
      });
      expect(response.status).toBe(400);
      const bytes = await readFile(logPath, "utf8");
      for (const secret of secrets) expect(bytes).not.toContain(secret);
      const entry = JSON.parse(bytes.trim()) as RequestLogEntry;
      expect(entry.headers["x-forwarded-custom"]).toBe("note [REDACTED] end");
      expect(entry.headers["referer"]).toBe("https://[REDACTED]@example.invalid/path");
      expect(entry.headers["x-upstream"]).toBe("Bearer [REDACTED]");
      expect(entry.headers["x-plain"]).toBe("visible-value");
      expect(entry.outcome).toMatchObject({ kind: "unmatched", prompt_prefix: "nobody scripted this, key [REDACTED]" });
    });

    // Regression: the userinfo rule used to stop at the first "@", logging "https://[REDACTED]@ss@host" and so the
    // part of the password after a raw "@".
    it("redacts the whole URL userinfo when the password itself holds an @", async () => {
      const { server, logPath } = await start();
      const response = await fetch(`${server.baseUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", referer: "https://user:p@ss@github.com/o/r" },
        body: JSON.stringify({ model: "m", max_tokens: 5, messages: userAsks("see https://u:pa@ss@h.invalid/x") }),
      });
      expect(response.status).toBe(400);
      const bytes = await readFile(logPath, "utf8");
      expect(bytes).not.toContain("ss@");
      const entry = JSON.parse(bytes.trim()) as RequestLogEntry;
      expect(entry.headers["referer"]).toBe("https://[REDACTED]@github.com/o/r");
      expect(entry.outcome).toMatchObject({ kind: "unmatched", prompt_prefix: "see https://[REDACTED]@h.invalid/x" });
    });

    it("writes one JSONL line per request, equal to the in-memory copy, with secrets redacted and a canonical body digest", async () => {
      const { client, server, logPath } = await start();
      const secretCookie = "session=COOKIE-SECRET-777";
      const body = { model: "m", max_tokens: 5, messages: userAsks("USER-MARK") };
      await client.messages.create(body, {
        headers: { cookie: secretCookie, "x-custom-token": "TOKEN-SECRET-999", "x-plain": "visible" },
      });
      const rawBody = { messages: userAsks("unknown prompt"), model: "m" };
      await rawPost(server.baseUrl, rawBody);
      const bytes = await readFile(logPath, "utf8");
      for (const secret of ["sk-test-SECRET-VALUE-123", "COOKIE-SECRET-777", "BEARER-SECRET-888", "TOKEN-SECRET-999", "sk-raw-SECRET"]) {
        expect(bytes).not.toContain(secret);
      }
      const lines = bytes.trim().split("\n").map((line) => JSON.parse(line) as RequestLogEntry);
      expect(lines).toEqual(JSON.parse(JSON.stringify(server.requests)));
      const first = lines[0];
      // SDK 1.x sends its key as a Bearer token; the raw request below uses x-api-key like the CLI.
      expect(first?.headers["authorization"]).toBe("[REDACTED]");
      expect(first?.headers["cookie"]).toBe("[REDACTED]");
      expect(first?.headers["x-plain"]).toBe("visible");
      expect(first?.body_sha256).toMatch(/^[0-9a-f]{64}$/);
      // Canonical JSON: the digest does not depend on the key order the client happened to send.
      const canonical = createHash("sha256").update(stableStringify({ model: "m", messages: userAsks("unknown prompt") })).digest("hex");
      expect(lines[1]?.body_sha256).toBe(canonical);
      expect(lines[1]?.body_bytes).toBe(Buffer.byteLength(JSON.stringify(rawBody)));
      expect(first).toMatchObject({ seq: 1, trajectory: "by-user", turn: 0, model: "m", stream: false, outcome: { kind: "reply", status: 200 } });
      expect(Date.parse(first?.time ?? "")).not.toBeNaN();
      expect(lines[1]?.outcome.kind).toBe("unmatched");
      expect(lines[1]?.headers["authorization"]).toBe("[REDACTED]");
      expect(lines[1]?.headers["x-api-key"]).toBe("[REDACTED]");
    });

    it("answers 500 instead of an unlogged reply when the log cannot be appended (/dev/full)", async () => {
      const { client } = await start(baseScript, { requestLogPath: "/dev/full" });
      const error = (await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("USER-MARK") }).catch((e: unknown) => e)) as APIError;
      expect(error).toBeInstanceOf(APIError);
      expect(error.status).toBe(500);
      expect(error.type).toBe("api_error");
      expect(error.apiMessage).toMatch(/request log \/dev\/full/);
    });

    it("appends to an existing log instead of truncating it", async () => {
      const { client, logPath, server } = await start();
      await client.messages.create({ model: "m", max_tokens: 5, messages: userAsks("USER-MARK") });
      await server.close();
      harness = null;
      const again = await startScriptedModel({ script: buildScript(baseScript), listen: { host: "127.0.0.1", port: 0 }, requestLogPath: logPath });
      try {
        await rawPost(again.baseUrl, { model: "m", max_tokens: 5, messages: userAsks("USER-MARK") });
      } finally {
        await again.close();
      }
      expect((await readFile(logPath, "utf8")).trim().split("\n")).toHaveLength(2);
    });
  });

  describe("listening", () => {
    it("serves over a Unix socket with baseUrl http://localhost and removes the socket on close", async () => {
      const socketPath = join(dir, "model.sock");
      const server = await startScriptedModel({ script: buildScript(baseScript), listen: { socketPath } });
      const agent = new Agent({ connect: { socketPath } });
      try {
        expect(server.baseUrl).toBe("http://localhost");
        expect(server.socketPath).toBe(socketPath);
        const client = new Anthropic({
          apiKey: "k",
          baseURL: server.baseUrl,
          maxRetries: 0,
          fetch: undiciFetch as unknown as typeof fetch,
          fetchOptions: { dispatcher: agent } as unknown as NonNullable<ConstructorParameters<typeof Anthropic>[0]>["fetchOptions"],
        });
        const message = await client.messages.stream({ model: "m", max_tokens: 5, messages: userAsks("USER-MARK") }).finalMessage();
        expect(message.content.map((block) => block.type)).toEqual(["text", "tool_use"]);
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest({ socketPath, path: "/v1/messages?beta=true", method: "POST", headers: { "content-type": "application/json" } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on("error", reject);
          req.end(JSON.stringify({ model: "m", max_tokens: 5, messages: userAsks("nothing matches") }));
        });
        expect(status).toBe(400);
      } finally {
        await agent.close();
        await server.close();
      }
      await expect(readFile(socketPath)).rejects.toMatchObject({ code: "ENOENT" });
    });

    it.each([0, -1, 1.5, Number.NaN, 300_001])("refuses stallTimeoutMs %s before binding anything", async (stallTimeoutMs) => {
      const failure = await startScriptedModel({ script: buildScript(baseScript), listen: { host: "127.0.0.1", port: 0 }, stallTimeoutMs }).catch(
        (e: unknown) => e,
      );
      expect(failure).toMatchObject({ code: "SCRIPTED_MODEL_INVALID_OPTIONS", message: expect.stringContaining("stallTimeoutMs") as unknown });
    });

    it("throws ListenError when the port is taken", async () => {
      const { server } = await start();
      const port = Number(new URL(server.baseUrl).port);
      const failure = await startScriptedModel({ script: buildScript(baseScript), listen: { host: "127.0.0.1", port } }).catch((e: unknown) => e);
      expect(isScriptedModelError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: "SCRIPTED_MODEL_LISTEN_FAILED" });
    });

    it("throws RequestLogWriteError when the log cannot be opened", async () => {
      const failure = await startScriptedModel({
        script: buildScript(baseScript),
        listen: { host: "127.0.0.1", port: 0 },
        requestLogPath: join(dir, "missing-dir", "log.jsonl"),
      }).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: "SCRIPTED_MODEL_REQUEST_LOG_WRITE_FAILED" });
      // The message says why, so the fix (create the directory) is evident without digging into `cause`.
      expect((failure as Error).message).toMatch(/missing-dir.*ENOENT/);
    });
  });
});

describe("a tool input as deep as a script may hold", () => {
  // Compared as JSON text: a recursive deep-equal of 4,000 levels is itself at risk of overflowing the stack.
  it("is served back unchanged (streamed, as JSON, over the OpenAI route) and its echo in the next request is digested", async () => {
    const parsed = parseScript(scriptWithInput(deepInputYaml("map", MAX_TOOL_INPUT_DEPTH)), "deep.yaml");
    if (!parsed.ok) throw new Error(parsed.error.message);
    const block = parsed.value.trajectories[0]?.turns[0]?.content[0];
    if (block?.type !== "tool_use") throw new Error("no tool_use block");
    const expected = JSON.stringify(block.input);
    const logPath = join(dir, "requests.jsonl");
    const server = await startScriptedModel({ script: parsed.value, listen: { host: "127.0.0.1", port: 0 }, requestLogPath: logPath });
    harness = { server, client: new Anthropic({ apiKey: "k", baseURL: server.baseUrl }), dir, logPath };
    const ask = { model: "m", max_tokens: 16, messages: userAsks("DEEP-MARK") };

    const json = await rawPost(server.baseUrl, ask);
    expect(json.status).toBe(200);
    const message = JSON.parse(json.text) as { content: Array<{ id: string; input: unknown }> };
    expect(JSON.stringify(message.content[0]?.input)).toBe(expected);

    const streamed = await rawPost(server.baseUrl, { ...ask, stream: true });
    expect(streamed.status).toBe(200);
    const partial = sseEvents(streamed.text).flatMap(({ data }) => {
      const delta = data["delta"] as { type?: string; partial_json?: string } | undefined;
      return delta?.type === "input_json_delta" ? [delta.partial_json ?? ""] : [];
    });
    expect(partial.join("")).toBe(expected);

    const echo = {
      model: "m",
      max_tokens: 16,
      messages: [
        ...userAsks("DEEP-MARK"),
        { role: "assistant", content: [{ type: "tool_use", id: message.content[0]?.id, name: "Bash", input: block.input }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: message.content[0]?.id, content: "ok" }] },
      ],
    };
    const next = await rawPost(server.baseUrl, echo);
    expect(next.status, next.text.slice(0, 300)).toBe(200);
    expect(server.requests.at(-1)).toMatchObject({ turn: 1, body_sha256: digestJson(echo), outcome: { kind: "reply" } });

    const openai = await startScriptedModel({ script: parsed.value, listen: { host: "127.0.0.1", port: 0 }, api: "openai" });
    try {
      const completion = await fetch(`${openai.baseUrl}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "DEEP-MARK" }] }),
      });
      expect(completion.status).toBe(200);
      const body = (await completion.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }> };
      expect(body.choices[0]?.message.tool_calls[0]?.function.arguments).toBe(expected);
    } finally {
      await openai.close();
    }
  });
});

describe("requireApiKey and knownModels (a stand-in for a real endpoint's checks)", () => {
  const body = { model: "claude-sonnet-4-5", max_tokens: 1, messages: userAsks("SYSTEM-MARK? no: USER-MARK") };
  async function post(baseUrl: string, headers: Record<string, string>, payload: unknown = body): Promise<{ status: number; json: { error?: { type?: string } } }> {
    const response = await fetch(`${baseUrl}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(payload) });
    return { status: response.status, json: (await response.json()) as { error?: { type?: string } } };
  }

  it("answers 401 authentication_error without the key, with a wrong one, and serves x-api-key or Bearer with the right one", async () => {
    const { server, logPath } = await start(baseScript, { requireApiKey: "demo-key-ABC" });
    expect(await post(server.baseUrl, {})).toMatchObject({ status: 401, json: { error: { type: "authentication_error" } } });
    expect(await post(server.baseUrl, { "x-api-key": "demo-key-ABD" })).toMatchObject({ status: 401 });
    expect(await post(server.baseUrl, { authorization: "Basic demo-key-ABC" })).toMatchObject({ status: 401 });
    expect((await post(server.baseUrl, { "x-api-key": "demo-key-ABC" })).status).toBe(200);
    expect((await post(server.baseUrl, { authorization: "Bearer demo-key-ABC" })).status).toBe(200);
    expect(server.requests.map((entry) => entry.outcome.kind)).toEqual(["unauthorized", "unauthorized", "unauthorized", "reply", "reply"]);
    expect(await readFile(logPath, "utf8")).not.toContain("demo-key-ABC");
  });

  it("answers 404 not_found_error for a model outside knownModels and serves the listed one", async () => {
    const { server } = await start(baseScript, { knownModels: ["claude-sonnet-4-5"] });
    expect(await post(server.baseUrl, {}, { ...body, model: "claude-nonexistent-9" })).toMatchObject({ status: 404, json: { error: { type: "not_found_error" } } });
    expect((await post(server.baseUrl, {})).status).toBe(200);
    expect(server.requests[0]?.outcome).toEqual({ kind: "not_found", status: 404 });
  });
});
