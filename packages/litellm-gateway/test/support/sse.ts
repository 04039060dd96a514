/** Test-only builders for Anthropic Messages SSE streams. */
export interface ScriptUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export function frame(data: Record<string, unknown>, name: string | null = String(data["type"])): string {
  return `${name === null ? "" : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export interface StreamSpec {
  model?: string;
  id?: string;
  startUsage?: ScriptUsage;
  deltaUsage?: ScriptUsage;
  text?: string;
  toolInputJson?: string[];
}

/** Builds the events of a well-formed stream: text block, optional tool_use block, usage start and delta. */
export function buildEvents(spec: StreamSpec = {}): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        id: spec.id ?? "msg_test",
        type: "message",
        role: "assistant",
        model: spec.model ?? "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: spec.startUsage ?? { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
    { type: "ping" },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: spec.text ?? "hello" } },
    { type: "content_block_stop", index: 0 },
  ];
  if (spec.toolInputJson !== undefined) {
    events.push({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "Bash", input: {} } });
    for (const part of spec.toolInputJson) {
      events.push({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: part } });
    }
    events.push({ type: "content_block_stop", index: 1 });
  }
  events.push({
    type: "message_delta",
    delta: { stop_reason: spec.toolInputJson === undefined ? "end_turn" : "tool_use", stop_sequence: null },
    usage: spec.deltaUsage ?? { output_tokens: 5 },
  });
  events.push({ type: "message_stop" });
  return events;
}

export function buildStream(spec: StreamSpec = {}): string {
  return buildEvents(spec).map((e) => frame(e)).join("");
}
