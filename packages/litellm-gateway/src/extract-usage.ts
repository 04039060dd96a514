import { AnthropicUsageWire, MessageResponseHead } from "./schema.js";
import type { WireUsage } from "./schema.js";

const USAGE_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;

/** Usage with every field unknown. */
export function emptyUsage(): WireUsage {
  return { input_tokens: null, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null };
}

/**
 * Folds a wire usage object onto `base`: a valid count in `next` overrides, an absent or null field stays as it was,
 * and a field present with anything but a non-negative integer becomes unknown (null), as does every field when
 * `next` is there but not an object. Absent or null `next` changes nothing.
 */
export function mergeUsage(base: WireUsage, next: unknown): WireUsage {
  if (next === undefined || next === null) return base;
  // A later event's usage supersedes the earlier one's: when it cannot be read, keeping the earlier value would pass
  // off message_start's placeholder (0 from LiteLLM and most translators) as the final count, and price it.
  if (typeof next !== "object" || Array.isArray(next)) return emptyUsage();
  const merged: WireUsage = { ...base };
  for (const field of USAGE_FIELDS) {
    const parsed = AnthropicUsageWire.shape[field].safeParse((next as Record<string, unknown>)[field]);
    if (!parsed.success) merged[field] = null;
    else if (typeof parsed.data === "number") merged[field] = parsed.data;
  }
  return merged;
}

/** Streaming usage reader: message_start sets the snapshot, every message_delta overrides the fields it carries. */
export interface UsageAccumulator {
  /** Feeds one parsed SSE `data` object (any type; irrelevant events are ignored). */
  push(data: unknown): void;
  /** The usage, served model and message id seen so far. */
  result(): { usage: WireUsage; model: string | null; messageId: string | null; sawUsage: boolean };
}

/** Creates a usage accumulator; it trusts nothing about field presence and never turns an absent field into 0. */
export function createUsageAccumulator(): UsageAccumulator {
  let usage = emptyUsage();
  let model: string | null = null;
  let messageId: string | null = null;
  let sawUsage = false;
  return {
    push(data) {
      if (typeof data !== "object" || data === null) return;
      const record = data as Record<string, unknown>;
      if (record["type"] === "message_start") {
        const message = record["message"];
        if (typeof message === "object" && message !== null) {
          const m = message as Record<string, unknown>;
          if (typeof m["model"] === "string") model = m["model"];
          // Only the first message_start names the message; a bounded id, so a hostile upstream cannot bloat rows.
          if (messageId === null && typeof m["id"] === "string" && m["id"] !== "") messageId = m["id"].slice(0, 200);
          if (m["usage"] !== undefined) {
            usage = mergeUsage(usage, m["usage"]);
            sawUsage = true;
          }
        }
      } else if (record["type"] === "message_delta" && record["usage"] !== undefined) {
        usage = mergeUsage(usage, record["usage"]);
        sawUsage = true;
      }
    },
    result() {
      return { usage: { ...usage }, model, messageId, sawUsage };
    },
  };
}

/** Reads usage, model and message id from a non-streaming `message` body; refuses (all-null) anything that does not parse. */
export function extractUsageFromMessage(body: unknown): { usage: WireUsage; model: string | null; messageId: string | null } {
  const parsed = MessageResponseHead.safeParse(body);
  if (!parsed.success) return { usage: emptyUsage(), model: null, messageId: null };
  const id = parsed.data.type === "message" && parsed.data.id !== undefined && parsed.data.id !== "" ? parsed.data.id.slice(0, 200) : null;
  return {
    usage: parsed.data.usage === undefined ? emptyUsage() : mergeUsage(emptyUsage(), parsed.data.usage),
    model: parsed.data.model ?? null,
    messageId: id,
  };
}
