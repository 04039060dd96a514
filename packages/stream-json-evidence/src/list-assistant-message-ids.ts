import { isJsonObject, type StreamEvent } from "./schema.js";

/** Longest message id kept; anything longer is not an Anthropic id and is dropped rather than matched. */
const MAX_MESSAGE_ID_CHARS = 200;

/**
 * The distinct `message.id`s of the assistant events handed in (main loop and subagents alike), in first-seen order:
 * the messages the CLI's own stream accounts for, which a cell matches against the gateway's wire rows. Trusts only
 * the events (pass the evidence window, or a killed session's complete events); ignores ids that are not short strings.
 */
export function listAssistantMessageIds(events: readonly StreamEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "assistant") continue;
    const message = event["message"];
    if (!isJsonObject(message)) continue;
    const id = message["id"];
    if (typeof id === "string" && id !== "" && id.length <= MAX_MESSAGE_ID_CHARS) ids.add(id);
  }
  return [...ids];
}
