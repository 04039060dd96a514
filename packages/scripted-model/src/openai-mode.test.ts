import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseScript } from "./load-script.js";
import { startScriptedModel, type ScriptedModelServer } from "./start-scripted-model.js";

const KEY = "sk-proj-scripted-openai-test-key";
const parsed = parseScript(
  JSON.stringify({
    version: 1,
    trajectories: [
      {
        name: "oai",
        match: { contains: "OAI-MODE", in: "first_user" },
        turns: [
          { content: [{ type: "text", text: "héllo 🚀 there" }, { type: "tool_use", name: "Bash", input: { command: "ls" } }], usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 3, cache_creation_input_tokens: 2 } },
          { content: [{ type: "text", text: "done" }], usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, faults: [{ kind: "http_error", status: 429 }] },
        ],
      },
    ],
  }),
  "openai-mode.json",
);
if (!parsed.ok) throw new Error(parsed.error.message);
const script = parsed.value;

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModel({ script, listen: { host: "127.0.0.1", port: 0 }, api: "openai", requireApiKey: KEY });
});
afterEach(async () => server.close());

async function post(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }, path = "/v1/chat/completions"): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

const first = { model: "gpt-4o", messages: [{ role: "system", content: "sys" }, { role: "user", content: [{ type: "text", text: "OAI-MODE go" }] }] };

describe("scripted-model in OpenAI-compatible mode", () => {
  it("answers a chat completion with text, a tool call, OpenAI usage (prompt includes cached) and tool_calls finish", async () => {
    const res = await post(first);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o",
      choices: [{ finish_reason: "tool_calls", message: { role: "assistant", content: "héllo 🚀 there", tool_calls: [{ type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] } }],
      usage: { prompt_tokens: 15, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } },
    });
  });

  it("streams chunks that join back to the reply, usage only when asked, then [DONE]", async () => {
    const res = await post({ ...first, stream: true, stream_options: { include_usage: true } });
    const datas = res.text.split("\n\n").filter((f) => f.startsWith("data: ")).map((f) => f.slice(6));
    expect(datas.at(-1)).toBe("[DONE]");
    const chunks = datas.slice(0, -1).map((d) => JSON.parse(d) as { choices: { delta: { content?: string; tool_calls?: { function: { arguments: string } }[] }; finish_reason: string | null }[]; usage?: unknown });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("héllo 🚀 there");
    expect(chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function.arguments).join("")).toBe('{"command":"ls"}');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 15 } });
    const plain = await post({ ...first, stream: true });
    expect(plain.text).not.toContain("prompt_tokens");
  });

  it("counts the position by assistant messages (tool messages are user turns) and serves faults as OpenAI errors", async () => {
    const res = await post({ ...first, messages: [...first.messages, { role: "assistant", content: null, tool_calls: [] }, { role: "tool", tool_call_id: "x", content: "out" }] });
    expect(res.status).toBe(429);
    expect(JSON.parse(res.text)).toMatchObject({ error: { type: "rate_limit_error" } });
  });

  it("takes the key only as Bearer, and serves only /v1/chat/completions", async () => {
    expect((await post(first, { "x-api-key": KEY })).status).toBe(401);
    expect(JSON.parse((await post(first, { authorization: "Bearer wrong" })).text)).toMatchObject({ error: { type: "authentication_error" } });
    expect((await post(first, { authorization: `Bearer ${KEY}` }, "/v1/messages")).status).toBe(404);
  });
});
