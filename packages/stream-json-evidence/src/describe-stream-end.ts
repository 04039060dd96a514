import { listContentBlocks, readContentText } from "./content-blocks.js";
import type { ParseEvidenceOutcome } from "./parse-evidence-stream.js";
import type { StreamEvent } from "./schema.js";

// What the CLI writes when its turn is interrupted (SIGINT or Escape). A headless session has no user to do that, and
// the harness stops sessions with SIGTERM, never SIGINT, so the interrupt came from inside the sandbox.
const INTERRUPT_MARKER = "[Request interrupted by user";

/**
 * Where a parent-captured stream stopped. `result`: at its result event, not interrupted. `interrupted`: at a result
 * event the CLI wrote after a user interrupt of its turn (its last conversation event the interrupt marker).
 * `tool-running`: without one, its last
 * conversation event the agent's own tool call (an assistant `tool_use`), so the CLI was running a tool the model
 * asked for. `tool-result`: without one, its last conversation event a `tool_result`: the tool had returned and the
 * CLI was about to ask the model again (or asking it). `model-turn`: without one, waiting on or reading the model
 * (a last assistant message without a tool call, or an `api_retry` after the last conversation event). `none`: no
 * conversation event at all. `unparsed`: the capture did not parse, so nothing can be said.
 */
export type StreamEnd = "result" | "interrupted" | "tool-running" | "tool-result" | "model-turn" | "none" | "unparsed";

function isConversation(event: StreamEvent): boolean {
  return event.type === "assistant" || event.type === "user";
}

function isTopLevel(event: StreamEvent): boolean {
  const parent = event["parent_tool_use_id"];
  return !(typeof parent === "string" && parent !== "");
}

/**
 * Says where a stream stopped (see {@link StreamEnd}), from the parsed events only (a subagent's events, inside the
 * parent's tool call, are read the same way: its own tool running, or its model being asked). Pure; trusts the
 * parser's verdict.
 */
export function describeStreamEnd(parse: ParseEvidenceOutcome): StreamEnd {
  if (parse.ok) {
    const last = [...parse.value.events].reverse().find((event) => isConversation(event) && isTopLevel(event));
    return last?.type === "user" && readContentText(last).startsWith(INTERRUPT_MARKER) ? "interrupted" : "result";
  }
  if (parse.partialEvents === null) return "unparsed";
  for (let index = parse.partialEvents.length - 1; index >= 0; index -= 1) {
    const event = parse.partialEvents[index];
    if (event === undefined) continue;
    if (event.type === "system" && event["subtype"] === "api_retry") return "model-turn";
    if (!isConversation(event)) continue;
    const blocks = listContentBlocks(event);
    if (event.type === "assistant") return blocks.some((block) => block["type"] === "tool_use") ? "tool-running" : "model-turn";
    if (blocks.some((block) => block["type"] === "tool_result")) return "tool-result";
    // A user message that is not a tool result (the prompt): the CLI was asking the model.
    return "model-turn";
  }
  return "none";
}
