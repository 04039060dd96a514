import { sha256Hex } from "@wfbench/digest";
import type { ContentBlock, Turn } from "./schema.js";

/** Everything needed to render one scripted reply, already decided by the server. */
export interface ReplyPlan {
  readonly messageId: string;
  readonly model: string;
  readonly trajectoryName: string;
  readonly position: number;
  readonly turn: Turn;
  readonly omitContentBlockStop: boolean;
  readonly streamError: { readonly afterBlocks: number; readonly errorType: string; readonly message: string } | null;
}

/** A content block as it goes over the wire (tool_use ids filled in). */
export type WireContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** Stop reason of a turn: the script's when given, else tool_use if any block calls a tool, else end_turn. */
export function deriveStopReason(turn: Turn): string {
  if (turn.stop_reason !== undefined) return turn.stop_reason;
  return turn.content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
}

/** Deterministic tool_use id, stable across retries so a retried turn reuses the same id. */
export function deriveToolUseId(trajectoryName: string, position: number, blockIndex: number): string {
  const digest = sha256Hex(`${trajectoryName}\u0000${position}\u0000${blockIndex}`);
  return `toolu_sm${digest.slice(0, 22)}`;
}

function toWireBlock(plan: ReplyPlan, block: ContentBlock, index: number): WireContentBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  return {
    type: "tool_use",
    id: block.id ?? deriveToolUseId(plan.trajectoryName, plan.position, index),
    name: block.name,
    input: block.input,
  };
}

/** The wire blocks of a plan, in order. */
export function renderContentBlocks(plan: ReplyPlan): WireContentBlock[] {
  return plan.turn.content.map((block, index) => toWireBlock(plan, block, index));
}

/** The turn's usage with every field present, as a complete message reports it. */
export function renderFullUsage(turn: Turn): Record<string, number> {
  return {
    input_tokens: turn.usage.input_tokens,
    output_tokens: turn.usage.output_tokens,
    cache_creation_input_tokens: turn.usage.cache_creation_input_tokens,
    cache_read_input_tokens: turn.usage.cache_read_input_tokens,
  };
}

/** The non-streaming JSON message for a plan (the CLI's `stream:false` fallback). */
export function renderMessage(plan: ReplyPlan): Record<string, unknown> {
  return {
    id: plan.messageId,
    type: "message",
    role: "assistant",
    model: plan.model,
    content: renderContentBlocks(plan),
    stop_reason: deriveStopReason(plan.turn),
    stop_sequence: null,
    usage: renderFullUsage(plan.turn),
  };
}

// Splits into up to `parts` pieces on code-point boundaries so clients must accumulate deltas.
function splitIntoChunks(text: string, parts: number): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const size = Math.max(1, Math.ceil(points.length / parts));
  const chunks: string[] = [];
  for (let start = 0; start < points.length; start += size) chunks.push(points.slice(start, start + size).join(""));
  return chunks;
}

/** One SSE frame: `event: <type>` and a JSON data line. */
export function formatSseFrame(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The SSE frames of a streamed reply per the measured contract, with the plan's faults applied. */
export function renderSseFrames(plan: ReplyPlan): string[] {
  const { turn } = plan;
  const usageInStart = turn.usage_at === "message_start";
  const startUsage = usageInStart
    ? { ...renderFullUsage(turn), output_tokens: Math.min(1, turn.usage.output_tokens) }
    : { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const frames: string[] = [
    formatSseFrame("message_start", {
      message: {
        id: plan.messageId,
        type: "message",
        role: "assistant",
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    }),
  ];
  const blocks = renderContentBlocks(plan);
  for (const [index, block] of blocks.entries()) {
    if (plan.streamError !== null && index >= plan.streamError.afterBlocks) break;
    if (block.type === "text") {
      frames.push(formatSseFrame("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of splitIntoChunks(block.text, 3)) {
        frames.push(formatSseFrame("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      frames.push(
        formatSseFrame("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      for (const partial_json of splitIntoChunks(JSON.stringify(block.input), 2)) {
        frames.push(formatSseFrame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }));
      }
    }
    if (!plan.omitContentBlockStop) frames.push(formatSseFrame("content_block_stop", { index }));
  }
  if (plan.streamError !== null) {
    frames.push(
      formatSseFrame("error", { error: { type: plan.streamError.errorType, message: plan.streamError.message } }),
    );
    return frames;
  }
  frames.push(
    formatSseFrame("message_delta", {
      delta: { stop_reason: deriveStopReason(turn), stop_sequence: null },
      usage: usageInStart ? { output_tokens: turn.usage.output_tokens } : renderFullUsage(turn),
    }),
  );
  frames.push(formatSseFrame("message_stop", {}));
  return frames;
}

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The Anthropic error type conventionally sent with an HTTP status. */
export function errorTypeForStatus(status: number): string {
  return ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** An Anthropic error JSON body. */
export function renderErrorBody(errorType: string, message: string, requestId: string): Record<string, unknown> {
  return { type: "error", error: { type: errorType, message }, request_id: requestId };
}
