import { z } from "zod";

// Anthropic Messages ↔ OpenAI Chat Completions. Pure conversions; the server around them is start-openai-translator.

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ImageBlock = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({ type: z.string(), media_type: z.string().optional(), data: z.string().optional(), url: z.string().optional() }),
});
const ToolUseBlock = z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() });
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
const AnyBlock = z.looseObject({ type: z.string() });
const Content = z.union([z.string(), z.array(AnyBlock)]);

/** The Anthropic request fields the translator reads; anything else (metadata, thinking, betas) is dropped. */
export const AnthropicRequest = z.looseObject({
  model: z.string().min(1),
  // The CLI also puts `system` turns inside messages (environment context) when the model is not a Claude id.
  messages: z.array(z.looseObject({ role: z.enum(["user", "assistant", "system"]), content: Content })),
  system: Content.optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().optional(), input_schema: z.unknown().optional() })).optional(),
  tool_choice: z.looseObject({ type: z.string(), name: z.string().optional() }).optional(),
});
/** Inferred type of AnthropicRequest. */
export type AnthropicRequest = z.infer<typeof AnthropicRequest>;

type ChatPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[] }
  | { role: "tool"; tool_call_id: string; content: string };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => TextBlock.safeParse(block))
    .filter((r) => r.success)
    .map((r) => r.data.text)
    .join("\n");
}

function userParts(blocks: readonly unknown[]): ChatPart[] {
  const parts: ChatPart[] = [];
  for (const block of blocks) {
    const text = TextBlock.safeParse(block);
    if (text.success) {
      parts.push({ type: "text", text: text.data.text });
      continue;
    }
    const image = ImageBlock.safeParse(block);
    if (image.success) {
      const { source } = image.data;
      const url = source.type === "base64" && source.data !== undefined ? `data:${source.media_type ?? "image/png"};base64,${source.data}` : source.url;
      if (url !== undefined) parts.push({ type: "image_url", image_url: { url } });
    }
  }
  return parts;
}

/** The OpenAI model name for an id routed to OpenAI: the routing prefix `openai/` is ours, not the provider's. */
export function toOpenAiModelName(model: string): string {
  return model.replace(/^openai\//iu, "");
}

/**
 * Builds the Chat Completions body for an Anthropic Messages request: system blocks become one system message, a
 * user turn's tool_result blocks become `tool` messages (placed first, as OpenAI requires them right after the
 * assistant's tool_calls), tool_use blocks become tool_calls with JSON-string arguments, thinking blocks are dropped,
 * and a stream asks for the final usage chunk. Trusts the schema-checked request; reads nothing else.
 */
export function toChatCompletionsRequest(request: AnthropicRequest): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  const system = textOf(request.system);
  if (system !== "") messages.push({ role: "system", content: system });
  for (const message of request.messages) {
    if (message.role === "system") {
      const text = textOf(message.content);
      if (text !== "") messages.push({ role: "system", content: text });
      continue;
    }
    if (typeof message.content === "string") {
      messages.push(message.role === "user" ? { role: "user", content: message.content } : { role: "assistant", content: message.content });
      continue;
    }
    if (message.role === "assistant") {
      const text = textOf(message.content);
      const calls = message.content.flatMap((block) => {
        const use = ToolUseBlock.safeParse(block);
        return use.success ? [{ id: use.data.id, type: "function" as const, function: { name: use.data.name, arguments: JSON.stringify(use.data.input ?? {}) } }] : [];
      });
      messages.push({ role: "assistant", content: text === "" ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const block of message.content) {
      const result = ToolResultBlock.safeParse(block);
      if (!result.success) continue;
      const body = textOf(result.data.content);
      messages.push({ role: "tool", tool_call_id: result.data.tool_use_id, content: result.data.is_error === true ? `[tool error] ${body}` : body });
    }
    const parts = userParts(message.content);
    if (parts.length > 0) messages.push({ role: "user", content: parts });
  }
  const body: Record<string, unknown> = { model: toOpenAiModelName(request.model), messages };
  if (request.max_tokens !== undefined) body["max_completion_tokens"] = request.max_tokens;
  if (request.temperature !== undefined) body["temperature"] = request.temperature;
  if (request.top_p !== undefined) body["top_p"] = request.top_p;
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) body["stop"] = request.stop_sequences;
  if (request.tools !== undefined && request.tools.length > 0) {
    body["tools"] = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.input_schema ?? { type: "object", properties: {} } },
    }));
    const choice = request.tool_choice;
    if (choice !== undefined) {
      body["tool_choice"] = choice.type === "any" ? "required" : choice.type === "none" ? "none" : choice.type === "tool" && choice.name !== undefined ? { type: "function", function: { name: choice.name } } : "auto";
    }
  }
  if (request.stream === true) {
    body["stream"] = true;
    body["stream_options"] = { include_usage: true };
  }
  return body;
}

const OpenAiUsage = z.looseObject({
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().nonnegative().optional() }).nullable().optional(),
});

/**
 * Anthropic usage for an OpenAI usage object: OpenAI's prompt tokens include the cached ones, Anthropic's input tokens
 * do not; OpenAI reports no cache writes (0). Null when the provider sent no usage, or one lacking prompt or
 * completion tokens or with any count that is not a non-negative integer: unknown, never 0.
 */
export function toAnthropicUsage(usage: unknown): Record<string, number> | null {
  const parsed = OpenAiUsage.safeParse(usage);
  if (!parsed.success || parsed.data.prompt_tokens === undefined || parsed.data.completion_tokens === undefined) return null;
  const cached = Math.min(parsed.data.prompt_tokens_details?.cached_tokens ?? 0, parsed.data.prompt_tokens);
  return { input_tokens: parsed.data.prompt_tokens - cached, output_tokens: parsed.data.completion_tokens, cache_read_input_tokens: cached, cache_creation_input_tokens: 0 };
}

/** Anthropic stop_reason for an OpenAI finish_reason. */
export function toStopReason(finish: string | null | undefined): string {
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  return "end_turn";
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === "" ? "{}" : text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return {};
  }
}

const ChatCompletion = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      finish_reason: z.string().nullable().optional(),
      message: z.looseObject({
        content: z.string().nullable().optional(),
        tool_calls: z.array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string().optional() }) })).optional(),
      }),
    }),
  ),
  usage: z.unknown().optional(),
});

/** The Anthropic message for a non-streaming chat completion, or null when the body is not one. */
export function toAnthropicMessage(completion: unknown, requestedModel: string): Record<string, unknown> | null {
  const parsed = ChatCompletion.safeParse(completion);
  if (!parsed.success || parsed.data.choices.length === 0) return null;
  const choice = parsed.data.choices[0]!;
  const content: Record<string, unknown>[] = [];
  if (typeof choice.message.content === "string" && choice.message.content !== "") content.push({ type: "text", text: choice.message.content });
  for (const call of choice.message.tool_calls ?? []) content.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseArguments(call.function.arguments ?? "") });
  return {
    id: `msg_${parsed.data.id ?? "openai"}`,
    type: "message",
    role: "assistant",
    model: parsed.data.model ?? requestedModel,
    content,
    stop_reason: toStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: toAnthropicUsage(parsed.data.usage) ?? {},
  };
}

/** Anthropic error type for an upstream HTTP status (what the CLI's retry logic keys on). */
export function errorTypeForStatus(status: number): string {
  if (status === 400 || status === 422) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 503 || status === 529) return "overloaded_error";
  return "api_error";
}

const ChatChunk = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        finish_reason: z.string().nullable().optional(),
        delta: z
          .looseObject({
            content: z.string().nullable().optional(),
            tool_calls: z
              .array(z.looseObject({ index: z.number().int().nonnegative(), id: z.string().optional(), function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional() }))
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  usage: z.unknown().optional(),
});

/** Turns OpenAI stream chunks into Anthropic SSE frames, in order. */
export interface StreamTranslator {
  /** Frames for one chunk's `data` JSON (unparseable or irrelevant chunks give none). */
  push(data: unknown): string[];
  /** Closing frames once the provider said `[DONE]` or ended the stream. */
  finish(): string[];
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Creates the chunk → SSE translator: a message_start (with an empty usage) on the first chunk, one content block per
 * text run and per tool call (arguments streamed as input_json_delta), and on finish the open block closed, a
 * message_delta carrying the stop reason and the provider's last usage (empty when it sent none or one that does not
 * parse: never invented counts), and message_stop. Trusts nothing in the chunks.
 */
export function createStreamTranslator(messageId: string, requestedModel: string): StreamTranslator {
  let started = false;
  let finished = false;
  let nextIndex = 0;
  let open: { kind: "text" } | { kind: "tool"; toolIndex: number } | null = null;
  let openIndex = -1;
  const toolBlocks = new Map<number, number>();
  let stopReason = "end_turn";
  let usage: Record<string, number> | null = null;
  const start = (model: string | undefined): string[] => {
    if (started) return [];
    started = true;
    return [
      frame("message_start", {
        type: "message_start",
        // No counts: the provider reports usage only in its last chunk, and a 0 here would be metered as a real 0
        // when that chunk never comes. The CLI (2.1.332) folds each usage onto its own zero baseline, field by field,
        // so an empty object reads exactly like zeros to it; the object itself must exist for the SDK's accumulator.
        message: { id: messageId, type: "message", role: "assistant", model: model ?? requestedModel, content: [], stop_reason: null, stop_sequence: null, usage: {} },
      }),
    ];
  };
  const close = (): string[] => {
    if (open === null) return [];
    open = null;
    return [frame("content_block_stop", { type: "content_block_stop", index: openIndex })];
  };
  return {
    push(data) {
      const parsed = ChatChunk.safeParse(data);
      if (!parsed.success || finished) return [];
      const out = start(parsed.data.model);
      // OpenAI sends `usage: null` on every chunk but the last. A usage object that is there but unreadable makes the
      // usage unknown rather than leaving an earlier chunk's (possibly 0) count standing.
      if (parsed.data.usage !== undefined && parsed.data.usage !== null) usage = toAnthropicUsage(parsed.data.usage);
      for (const choice of parsed.data.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        const delta = choice.delta;
        if (typeof delta?.content === "string" && delta.content !== "") {
          if (open?.kind !== "text") {
            out.push(...close());
            openIndex = nextIndex++;
            open = { kind: "text" };
            out.push(frame("content_block_start", { type: "content_block_start", index: openIndex, content_block: { type: "text", text: "" } }));
          }
          out.push(frame("content_block_delta", { type: "content_block_delta", index: openIndex, delta: { type: "text_delta", text: delta.content } }));
        }
        for (const call of delta?.tool_calls ?? []) {
          if (!toolBlocks.has(call.index)) {
            out.push(...close());
            openIndex = nextIndex++;
            toolBlocks.set(call.index, openIndex);
            open = { kind: "tool", toolIndex: call.index };
            out.push(frame("content_block_start", { type: "content_block_start", index: openIndex, content_block: { type: "tool_use", id: call.id ?? `toolu_${messageId}_${call.index}`, name: call.function?.name ?? "", input: {} } }));
          }
          // Anthropic blocks never interleave; a provider that goes back to an earlier call cannot be followed.
          if (open?.kind !== "tool" || open.toolIndex !== call.index) continue;
          const piece = call.function?.arguments ?? "";
          if (piece !== "") out.push(frame("content_block_delta", { type: "content_block_delta", index: openIndex, delta: { type: "input_json_delta", partial_json: piece } }));
        }
        if (typeof choice.finish_reason === "string") stopReason = toStopReason(choice.finish_reason);
      }
      return out;
    },
    finish() {
      if (finished) return [];
      finished = true;
      const out = [...start(undefined), ...close()];
      out.push(frame("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: usage ?? {} }));
      out.push(frame("message_stop", { type: "message_stop" }));
      return out;
    },
  };
}
