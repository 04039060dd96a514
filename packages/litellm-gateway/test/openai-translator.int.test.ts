import Anthropic from "@anthropic-ai/sdk";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { Agent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGateway, type Gateway } from "../src/start-gateway.js";
import { readUsageLog } from "../src/usage-log.js";
import { startTestUpstream, type TestUpstream } from "./support/upstream.js";

// The OpenAI route without the CLI: Anthropic SDK → metering gateway → translator → scripted model in OpenAI mode.
const OPENAI_KEY = "sk-proj-test-openai-key-5f1e2d3c4b5a69788796a5b4c3d2e1f0";
const script = (() => {
  const parsed = parseScript(
    JSON.stringify({
      version: 1,
      model: "gpt-4.1-mini",
      trajectories: [
        {
          name: "oai",
          match: { contains: "WFBENCH-OAI-ROUTE" },
          turns: [
            {
              content: [
                { type: "text", text: "Listing — ünïcode 🚀 first." },
                { type: "tool_use", name: "Bash", input: { command: "ls -la", description: "list" } },
              ],
              usage: { input_tokens: 120, output_tokens: 33, cache_read_input_tokens: 7, cache_creation_input_tokens: 11 },
            },
            { content: [{ type: "text", text: "Done." }], usage: { input_tokens: 200, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 } },
          ],
        },
      ],
    }),
    "openai-route.json",
  );
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
})();

let dir: string;
let provider: ScriptedModelServer;
let gateway: Gateway;
let client: Agent;
let stand: TestUpstream | null = null;

function sdk(token: string): Anthropic {
  return new Anthropic({ apiKey: token, baseURL: "http://localhost", maxRetries: 0, fetchOptions: { dispatcher: client } as never });
}

// The gateway supervises the translator itself: the provider key is only ever in this options object.
async function start(key: string, baseUrl = `${provider.baseUrl}/v1`): Promise<void> {
  gateway = await startGateway({ listen: { socketPath: join(dir, "gw.sock") }, upstream: { kind: "openai", baseUrl, apiKey: key }, usageLogPath: join(dir, "usage.jsonl") });
  client = new Agent({ connect: { socketPath: join(dir, "gw.sock") } });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-oai-"));
  provider = await startScriptedModel({ script, listen: { host: "127.0.0.1", port: 0 }, api: "openai", requireApiKey: OPENAI_KEY, requestLogPath: join(dir, "provider.jsonl") });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
  await provider.close();
  await stand?.close();
  stand = null;
  await rm(dir, { recursive: true, force: true });
});

describe("the OpenAI route through the translator", () => {
  it("streams a tool call and a final answer as Anthropic SSE and meters both on the Anthropic side", async () => {
    await start(OPENAI_KEY);
    const token = gateway.mintCellToken("cell-oai");
    const tools = [{ name: "Bash", description: "run", input_schema: { type: "object" as const, properties: { command: { type: "string" } } } }];
    const first = await sdk(token).messages.stream({ model: "gpt-4.1-mini", max_tokens: 64, system: "sys", tools, messages: [{ role: "user", content: [{ type: "text", text: "reminder" }, { type: "text", text: "WFBENCH-OAI-ROUTE go" }] }] }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content[0]).toMatchObject({ type: "text", text: "Listing — ünïcode 🚀 first." });
    const use = first.content[1];
    expect(use).toMatchObject({ type: "tool_use", name: "Bash", input: { command: "ls -la", description: "list" } });
    if (use?.type !== "tool_use") throw new Error("no tool_use block");
    const second = await sdk(token).messages.stream({
      model: "gpt-4.1-mini",
      max_tokens: 64,
      tools,
      messages: [
        { role: "user", content: "WFBENCH-OAI-ROUTE go" },
        { role: "assistant", content: first.content.map((b) => (b.type === "text" ? { type: "text" as const, text: b.text } : { type: "tool_use" as const, id: use.id, name: use.name, input: use.input })) },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "a\nb" }] },
      ],
    }).finalMessage();
    expect(second.content).toMatchObject([{ type: "text", text: "Done." }]);
    expect(second.content).toHaveLength(1);
    expect(second.stop_reason).toBe("end_turn");
    // OpenAI folds cache writes into prompt tokens and reports only cache reads.
    expect(second.usage).toMatchObject({ input_tokens: 200, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 });

    await gateway.flush();
    const rows = await readUsageLog(join(dir, "usage.jsonl"));
    expect(rows.map((r) => [r.upstream, r.outcome, r.sse_conformant, r.usage])).toEqual([
      ["openai", "ok", true, { input_tokens: 131, output_tokens: 33, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 }],
      ["openai", "ok", true, { input_tokens: 200, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 }],
    ]);
    expect(provider.requests.map((r) => [r.path, r.turn, r.outcome.kind])).toEqual([["/v1/chat/completions", 0, "reply"], ["/v1/chat/completions", 1, "reply"]]);
    for (const file of ["usage.jsonl", "provider.jsonl"]) expect(await readFile(join(dir, file), "utf8")).not.toContain(OPENAI_KEY);
  });

  it("answers a non-streaming request as an Anthropic message", async () => {
    await start(OPENAI_KEY);
    const message = await sdk(gateway.mintCellToken("cell-json")).messages.create({ model: "openai/gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "WFBENCH-OAI-ROUTE json" }] });
    expect(message.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(message.usage).toMatchObject({ input_tokens: 131, output_tokens: 33 });
    expect(provider.requests[0]?.model).toBe("gpt-4.1-mini");
  });

  it("passes a refused provider key on as a 401 authentication_error without the key", async () => {
    const wrong = "sk-proj-wrong-key-00000000000000000000000000000000";
    await start(wrong);
    const failure = await sdk(gateway.mintCellToken("cell-bad")).messages.create({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "WFBENCH-OAI-ROUTE" }] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(String((failure as Error).message)).not.toContain(wrong);
    await gateway.flush();
    const rows = await readUsageLog(join(dir, "usage.jsonl"));
    expect(rows.map((r) => [r.outcome, r.http_status])).toEqual([["http_error", 401]]);
    expect(JSON.stringify(rows)).not.toContain(wrong);
  });

  it("turns an unreachable provider into a 502 api_error", async () => {
    await start(OPENAI_KEY, "http://127.0.0.1:1");
    const failure = await sdk(gateway.mintCellToken("cell-dead")).messages.create({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Anthropic.InternalServerError);
    expect((failure as { status?: number }).status).toBe(502);
    expect((failure as Error).message).toContain("could not reach");
  });

  it("refuses an openai upstream without the provider key, and leaves no translator behind on close", async () => {
    await expect(startGateway({ listen: { socketPath: join(dir, "x.sock") }, upstream: { kind: "openai", baseUrl: provider.baseUrl }, usageLogPath: join(dir, "u.jsonl") })).rejects.toMatchObject({ code: "GATEWAY_CONFIG_INVALID" });
    // os.tmpdir() follows TMPDIR: point it at this test's own directory so no other process's dirs are counted.
    const saved = process.env["TMPDIR"];
    process.env["TMPDIR"] = dir;
    try {
      await start(OPENAI_KEY);
    } finally {
      if (saved === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = saved;
    }
    const translatorDirs = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.startsWith("wfgw-oai-"));
    expect(await translatorDirs()).toHaveLength(1);
    await gateway.close();
    expect(await translatorDirs()).toEqual([]);
  });
});

// A provider that ignores stream_options.include_usage, or sends a usage it cannot stand behind: the scripted model
// always honours include_usage, so this loopback stand-in speaks the chat-completions wire by hand.
describe("the OpenAI route when the provider does not report usage", () => {
  const unknown = { input_tokens: null, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null };
  const chunk = (extra: Record<string, unknown>) => `data: ${JSON.stringify({ id: "chatcmpl-1", model: "gpt-4.1-mini", ...extra })}\n\n`;
  const chunks = (usage: unknown): string =>
    [
      chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }], usage: null }),
      chunk({ choices: [{ index: 0, delta: { content: "Hi." }, finish_reason: null }], usage: null }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: null }),
      ...(usage === undefined ? [] : [chunk({ choices: [], usage })]),
      "data: [DONE]\n\n",
    ].join("");

  async function startStand(): Promise<TestUpstream> {
    stand = await startTestUpstream();
    await start(OPENAI_KEY, `${stand.url}/v1`);
    return stand;
  }

  async function onlyRow() {
    await gateway.flush();
    const rows = await readUsageLog(join(dir, "usage.jsonl"));
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  it.each<[string, unknown]>([
    ["no usage chunk (include_usage ignored)", undefined],
    ["a usage chunk without completion_tokens", { prompt_tokens: 12 }],
    ["a usage chunk with a negative count", { prompt_tokens: 12, completion_tokens: -3 }],
    ["a usage chunk with a string count", { prompt_tokens: "12", completion_tokens: 4 }],
    ["a usage chunk that is not an object", "12 tokens"],
  ])("meters a stream with %s as unknown usage and cost (null, never 0)", async (_name, usage) => {
    const provider = await startStand();
    provider.enqueue({ kind: "sse", body: chunks(usage) });
    const token = gateway.mintCellToken("cell-nousage");
    const message = await sdk(token).messages.stream({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content).toMatchObject([{ type: "text", text: "Hi." }]);
    expect(JSON.parse(provider.seen[0]?.body ?? "{}")).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const row = await onlyRow();
    expect(row).toMatchObject({ upstream: "openai", outcome: "ok", sse_conformant: true, usage: unknown, cost_usd: null, priced_model: null });
    // Served but not measured: the cell's spend is unknown, not free.
    expect(gateway.summarizeCell("cell-nousage")).toMatchObject({ requests: 1, complete: false, costUsd: null, wireTokens: 0 });
  });

  it("meters a usage chunk that follows an earlier readable one but is itself unreadable as unknown, not the stale count", async () => {
    const provider = await startStand();
    const early = chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Hi." }, finish_reason: null }], usage: { prompt_tokens: 12, completion_tokens: 0 } });
    provider.enqueue({ kind: "sse", body: `${early}${chunks({ prompt_tokens: 12, completion_tokens: 2.5 })}` });
    await sdk(gateway.mintCellToken("cell-stale")).messages.stream({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect((await onlyRow()).usage).toEqual(unknown);
  });

  it("meters a stream cut before its usage chunk as unknown usage, not 0 input tokens", async () => {
    const provider = await startStand();
    provider.enqueue({ kind: "hangup-after", body: chunks(undefined).replace("data: [DONE]\n\n", "") });
    const failure = await sdk(gateway.mintCellToken("cell-cut")).messages.stream({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const row = await onlyRow();
    expect(row).toMatchObject({ outcome: "stream_error", usage: unknown, cost_usd: null });
    expect(row.message_id).toMatch(/^msg_oai_/);
  });

  it.each<[string, unknown]>([
    ["no usage", undefined],
    ["usage without prompt_tokens", { completion_tokens: 4 }],
    ["usage with an invalid cached count", { prompt_tokens: 12, completion_tokens: 4, prompt_tokens_details: { cached_tokens: -1 } }],
  ])("meters a non-streaming completion with %s as unknown usage and cost", async (_name, usage) => {
    const provider = await startStand();
    provider.enqueue({
      kind: "json",
      status: 200,
      body: { id: "chatcmpl-2", object: "chat.completion", model: "gpt-4.1-mini", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hi." } }], ...(usage === undefined ? {} : { usage }) },
    });
    const message = await sdk(gateway.mintCellToken("cell-json-nousage")).messages.create({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    expect(message.content).toMatchObject([{ type: "text", text: "Hi." }]);
    const row = await onlyRow();
    expect(row).toMatchObject({ outcome: "ok", stream: false, usage: unknown, cost_usd: null, priced_model: null });
    expect(gateway.summarizeCell("cell-json-nousage")).toMatchObject({ complete: false, costUsd: null });
  });

  it("still meters a provider that does report usage exactly (control)", async () => {
    const provider = await startStand();
    provider.enqueue({ kind: "sse", body: chunks({ prompt_tokens: 300, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 100 } }) });
    await sdk(gateway.mintCellToken("cell-usage")).messages.stream({ model: "gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    const row = await onlyRow();
    expect(row.usage).toEqual({ input_tokens: 200, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 });
    expect(row.cost_usd).toBeGreaterThan(0);
  });
});
