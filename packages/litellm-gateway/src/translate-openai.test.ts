import { describe, expect, it } from "vitest";
import { createSseParser } from "./parse-sse.js";
import { createSseConformanceChecker } from "./check-sse-conformance.js";
import { AnthropicRequest, createStreamTranslator, toAnthropicMessage, toAnthropicUsage, toChatCompletionsRequest, toStopReason } from "./translate-openai.js";

function request(body: unknown): AnthropicRequest {
  return AnthropicRequest.parse(body);
}

describe("toChatCompletionsRequest", () => {
  it("maps system, in-message system turns, tool_use and tool_result, tools and tool_choice, and asks for stream usage", () => {
    const body = toChatCompletionsRequest(
      request({
        model: "openai/gpt-4.1-mini",
        max_tokens: 100,
        stream: true,
        stop_sequences: ["END"],
        system: [{ type: "text", text: "be brief" }],
        tools: [{ name: "Bash", description: "run", input_schema: { type: "object" } }],
        tool_choice: { type: "any" },
        thinking: { type: "enabled" },
        messages: [
          { role: "user", content: [{ type: "text", text: "reminder" }, { type: "text", text: "go" }] },
          { role: "system", content: [{ type: "text", text: "env context" }] },
          { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "ok" }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a" }], is_error: true }, { type: "text", text: "next" }] },
        ],
      }),
    );
    expect(body).toEqual({
      model: "gpt-4.1-mini",
      max_completion_tokens: 100,
      stop: ["END"],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "Bash", description: "run", parameters: { type: "object" } } }],
      tool_choice: "required",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "reminder" }, { type: "text", text: "go" }] },
        { role: "system", content: "env context" },
        { role: "assistant", content: "ok", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: "[tool error] a" },
        { role: "user", content: [{ type: "text", text: "next" }] },
      ],
    });
  });

  it("refuses (schema) a message role it does not know", () => {
    expect(AnthropicRequest.safeParse({ model: "gpt-4o", messages: [{ role: "tool", content: "x" }] }).success).toBe(false);
  });
});

describe("usage and stop reasons", () => {
  it("subtracts cached prompt tokens from input and keeps an absent usage unknown, never 0", () => {
    expect(toAnthropicUsage({ prompt_tokens: 300, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 100 } })).toEqual({ input_tokens: 200, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 });
    expect(toAnthropicUsage(undefined)).toBeNull();
    expect(toAnthropicUsage({ completion_tokens: 5 })).toBeNull();
  });
  it("maps finish reasons", () => {
    expect([toStopReason("stop"), toStopReason("length"), toStopReason("tool_calls"), toStopReason(null)]).toEqual(["end_turn", "max_tokens", "tool_use", "end_turn"]);
  });
  it("reads a non-streaming completion, and refuses one without choices", () => {
    const message = toAnthropicMessage({ id: "c1", model: "gpt-4o", choices: [{ finish_reason: "tool_calls", message: { content: "hi", tool_calls: [{ id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }] } }], usage: { prompt_tokens: 10, completion_tokens: 2 } }, "gpt-4o");
    expect(message).toMatchObject({ type: "message", stop_reason: "tool_use", content: [{ type: "text", text: "hi" }, { type: "tool_use", id: "call_1", name: "Bash", input: { command: "ls" } }], usage: { input_tokens: 10, output_tokens: 2 } });
    expect(toAnthropicMessage({ choices: [] }, "gpt-4o")).toBeNull();
  });
});

describe("createStreamTranslator", () => {
  it("emits a conformant Anthropic stream for text then two tool calls, with the final usage in message_delta", () => {
    const t = createStreamTranslator("msg_1", "gpt-4o");
    const chunk = (delta: unknown, finish: string | null = null) => ({ model: "gpt-4o-2024", choices: [{ index: 0, delta, finish_reason: finish }] });
    const frames = [
      ...t.push(chunk({ role: "assistant", content: "" })),
      ...t.push(chunk({ content: "Hel" })),
      ...t.push(chunk({ content: "lo" })),
      ...t.push(chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "Bash", arguments: '{"comm' } }] })),
      ...t.push(chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] })),
      ...t.push(chunk({ tool_calls: [{ index: 1, id: "call_b", function: { name: "Read", arguments: "{}" } }] })),
      ...t.push(chunk({}, "tool_calls")),
      ...t.push({ choices: [], usage: { prompt_tokens: 50, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 20 } } }),
      ...t.finish(),
      ...t.finish(),
    ];
    const parser = createSseParser();
    const checker = createSseConformanceChecker();
    const events = parser.push(Buffer.from(frames.join(""), "utf8"));
    const data = events.map((e) => checker.push(e)) as Record<string, unknown>[];
    expect(checker.finish()).toMatchObject({ conformant: true, violations: [] });
    expect(events.map((e) => e.event)).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
    expect(data[0]).toMatchObject({ message: { id: "msg_1", model: "gpt-4o-2024" } });
    expect(data[5]).toMatchObject({ index: 1, content_block: { type: "tool_use", id: "call_a", name: "Bash" } });
    expect(data[12]).toEqual({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { input_tokens: 30, output_tokens: 7, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 } });
  });

  function usageEvents(chunks: readonly unknown[]): Record<string, unknown>[] {
    const t = createStreamTranslator("msg_2", "gpt-4o");
    const frames = [...chunks.flatMap((c) => t.push(c)), ...t.finish()];
    const checker = createSseConformanceChecker();
    const data = createSseParser().push(Buffer.from(frames.join(""), "utf8")).map((e) => checker.push(e)) as Record<string, unknown>[];
    expect(checker.finish()).toMatchObject({ conformant: true });
    return data;
  }
  const text = { choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }], usage: null };

  it("invents no counts: message_start's usage is empty, and so is message_delta's when the provider sent none", () => {
    const data = usageEvents([text]);
    expect((data[0]?.["message"] as Record<string, unknown>)["usage"]).toEqual({});
    expect(data.at(-2)).toEqual({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: {} });
  });

  it.each<[string, unknown]>([
    ["lacks completion_tokens", { prompt_tokens: 12 }],
    ["has a fractional count", { prompt_tokens: 12, completion_tokens: 2.5 }],
    ["is not an object", "12 tokens"],
  ])("drops an earlier usage chunk's counts when the last one %s (unknown, not stale)", (_name, last) => {
    const data = usageEvents([{ ...text, usage: { prompt_tokens: 12, completion_tokens: 0 } }, { choices: [], usage: last }]);
    expect(data.at(-2)?.["usage"]).toEqual({});
  });
});
