// Minimal event builders for unit tests; the realistic transcripts live in test/fixtures/.
import type { JsonObject, JsonValue } from "../../src/schema.js";

export const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
export const jsonl = (events: readonly JsonValue[]): string => events.map((event) => `${JSON.stringify(event)}\n`).join("");

export const init = (skills: string[] = []): JsonObject => ({ type: "system", subtype: "init", session_id: "s-1", skills });
export const assistant = (content: JsonValue[], extra: JsonObject = {}): JsonObject => ({
  type: "assistant",
  message: { id: `msg_${JSON.stringify(content).length}`, role: "assistant", content, usage: { input_tokens: 999, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
  parent_tool_use_id: null,
  ...extra,
});
export const user = (content: JsonValue[], extra: JsonObject = {}): JsonObject => ({ type: "user", message: { role: "user", content }, parent_tool_use_id: null, ...extra });
export const toolUse = (id: JsonValue, name: string, input: JsonValue): JsonObject => ({ type: "tool_use", id, name, input });
export const toolResult = (id: JsonValue, extra: JsonObject = {}): JsonObject => ({ type: "tool_result", tool_use_id: id, content: "ok", ...extra });
export const result = (extra: JsonObject = {}): JsonObject => ({
  type: "result",
  subtype: "success",
  is_error: false,
  num_turns: 2,
  duration_ms: 1500,
  total_cost_usd: 0.01,
  usage: { input_tokens: 10, cache_creation_input_tokens: 2, cache_read_input_tokens: 3, output_tokens: 4 },
  modelUsage: { "claude-sonnet-4-5": { inputTokens: 10, outputTokens: 4, cacheReadInputTokens: 3, cacheCreationInputTokens: 2, costUSD: 0.01, costBasis: "list" } },
  session_id: "s-1",
  ...extra,
});
