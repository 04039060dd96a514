import { deriveStopReason, renderContentBlocks, type ReplyPlan } from "./render-reply.js";

// The scripted model's OpenAI-compatible face (POST /v1/chat/completions): the same turns, OpenAI's wire shapes.

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function partsToBlocks(content: unknown): unknown {
  if (typeof content === "string" || !Array.isArray(content)) return content ?? "";
  return content.map((part) => {
    const p = record(part);
    return p?.["type"] === "text" && typeof p["text"] === "string" ? { type: "text", text: p["text"] } : { type: String(p?.["type"] ?? "unknown") };
  });
}

/**
 * Reads a Chat Completions body as the Messages request turn selection understands: system messages joined into
 * `system`, user and tool messages as user turns (a tool message's text as a tool_result), assistant messages as
 * assistant turns (so the position is the same count of assistant messages). Anything unexpected is passed on as is,
 * for the Messages schema to refuse.
 */
export function chatRequestAsMessages(body: unknown): unknown {
  const b = record(body);
  if (b === null || !Array.isArray(b["messages"])) return body;
  const system: string[] = [];
  const messages: unknown[] = [];
  for (const raw of b["messages"] as unknown[]) {
    const m = record(raw);
    const role = m?.["role"];
    if (m === null) messages.push(raw);
    else if (role === "system" || role === "developer") system.push(typeof m["content"] === "string" ? m["content"] : "");
    else if (role === "tool") messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: String(m["tool_call_id"] ?? ""), content: typeof m["content"] === "string" ? m["content"] : "" }] });
    else if (role === "assistant") messages.push({ role: "assistant", content: typeof m["content"] === "string" ? m["content"] : "" });
    else messages.push({ role, content: partsToBlocks(m["content"]) });
  }
  return { model: b["model"], messages, ...(system.length > 0 ? { system: system.join("\n") } : {}), ...(typeof b["stream"] === "boolean" ? { stream: b["stream"] } : {}) };
}

/** OpenAI usage for a turn: prompt tokens include the cached ones; OpenAI has no cache-write figure, so writes count as prompt. */
export function renderOpenAiUsage(plan: ReplyPlan): Record<string, unknown> {
  const u = plan.turn.usage;
  const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
  return { prompt_tokens: prompt, completion_tokens: u.output_tokens, total_tokens: prompt + u.output_tokens, prompt_tokens_details: { cached_tokens: u.cache_read_input_tokens } };
}

function finishReason(plan: ReplyPlan): string {
  const stop = deriveStopReason(plan.turn);
  return stop === "tool_use" ? "tool_calls" : stop === "max_tokens" ? "length" : "stop";
}

function toolCalls(plan: ReplyPlan): { id: string; type: "function"; function: { name: string; arguments: string } }[] {
  return renderContentBlocks(plan).flatMap((block) => (block.type === "tool_use" ? [{ id: block.id, type: "function" as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : []));
}

function textOf(plan: ReplyPlan): string {
  return renderContentBlocks(plan).flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n\n");
}

/** The non-streaming `chat.completion` for a plan. */
export function renderChatCompletion(plan: ReplyPlan, created: number): Record<string, unknown> {
  const calls = toolCalls(plan);
  const text = textOf(plan);
  return {
    id: plan.messageId,
    object: "chat.completion",
    created,
    model: plan.model,
    choices: [{ index: 0, finish_reason: finishReason(plan), message: { role: "assistant", content: text === "" ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) } }],
    usage: renderOpenAiUsage(plan),
  };
}

/** The `data:` frames of a streamed chat completion: role, text in pieces, each tool call (arguments in two pieces), finish, usage when asked, [DONE]. */
export function renderChatChunks(plan: ReplyPlan, created: number, includeUsage: boolean): string[] {
  const head = { id: plan.messageId, object: "chat.completion.chunk", created, model: plan.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const frames = [chunk({ role: "assistant", content: "" })];
  // Split on code points so a client must join deltas without ever seeing half a surrogate pair.
  const points = Array.from(textOf(plan));
  const third = Math.max(1, Math.ceil(points.length / 3));
  for (let at = 0; at < points.length; at += third) frames.push(chunk({ content: points.slice(at, at + third).join("") }));
  for (const [index, call] of toolCalls(plan).entries()) {
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: args.slice(0, half) } }] }));
    frames.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  }
  frames.push(chunk({}, finishReason(plan)));
  if (includeUsage) frames.push(`data: ${JSON.stringify({ ...head, choices: [], usage: renderOpenAiUsage(plan) })}\n\n`);
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** An OpenAI error JSON body. */
export function renderOpenAiErrorBody(errorType: string, message: string): Record<string, unknown> {
  return { error: { message, type: errorType, param: null, code: errorType } };
}
