import { MAX_SSE_EVENT_BYTES, createSseParser } from "./parse-sse.js";
import type { SseEvent } from "./parse-sse.js";

/** Result of checking one Anthropic Messages SSE stream against the contract Claude Code needs. */
export interface SseConformanceReport {
  readonly conformant: boolean;
  /** Human-readable violations, in stream order, capped at MAX_SSE_VIOLATIONS. */
  readonly violations: readonly string[];
  readonly eventCount: number;
}

/** Stateful checker fed one event at a time (the gateway tees live streams through it). */
export interface SseConformanceChecker {
  /** Checks one raw SSE event; returns its parsed `data` (undefined when it was not JSON). */
  push(event: SseEvent): unknown;
  /** Closes the stream and reports; later pushes are ignored. */
  finish(): SseConformanceReport;
}

/** Violations kept per stream, so a garbage stream cannot bloat a usage row. */
export const MAX_SSE_VIOLATIONS = 20;

/** Most tool_use input (UTF-16 units) one block may accumulate for its JSON check; beyond it the input is flagged, not held. */
export const MAX_TOOL_INPUT_CHARS = 16 * 1024 * 1024;

const DELTA_FOR_BLOCK: Readonly<Record<string, readonly string[]>> = {
  text: ["text_delta", "citations_delta"],
  tool_use: ["input_json_delta"],
  server_tool_use: ["input_json_delta"],
  thinking: ["thinking_delta", "signature_delta"],
  redacted_thinking: [],
};

interface OpenBlock {
  index: number;
  type: string;
  json: string;
  oversized: boolean;
  startInput: unknown;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Creates a checker for: exactly one message_start (first) and one message_stop (last), block start/stop pairs with
 * indices 0,1,2…, deltas matching their block's type, tool_use input that parses as a JSON object, usage present in
 * message_start and message_delta, and no `error` events. It trusts no field of the stream.
 */
export function createSseConformanceChecker(): SseConformanceChecker {
  const violations: string[] = [];
  let dropped = 0;
  let eventCount = 0;
  let starts = 0;
  let stops = 0;
  let deltas = 0;
  let deltaHadUsage = false;
  let nextIndex = 0;
  let open: OpenBlock | null = null;
  let finished = false;

  const flag = (text: string): void => {
    if (violations.length < MAX_SSE_VIOLATIONS) violations.push(text);
    else dropped += 1;
  };

  const closeBlock = (block: OpenBlock): void => {
    if (block.type !== "tool_use" && block.type !== "server_tool_use") return;
    if (block.oversized) {
      flag(`block ${block.index}: tool_use input longer than ${MAX_TOOL_INPUT_CHARS} characters, not checked`);
      return;
    }
    if (block.json === "") {
      if (asRecord(block.startInput) === null) flag(`block ${block.index}: tool_use has no input object`);
      return;
    }
    try {
      if (asRecord(JSON.parse(block.json)) === null) flag(`block ${block.index}: tool_use input is not a JSON object`);
    } catch {
      flag(`block ${block.index}: tool_use input does not parse as JSON`);
    }
  };

  const check = (name: string | null, data: Record<string, unknown>): void => {
    const type = data["type"];
    if (typeof type !== "string") {
      flag(`event ${eventCount}: data has no type`);
      return;
    }
    if (name !== null && name !== type) flag(`event ${eventCount}: event name ${name} differs from data type ${type}`);
    if (stops > 0) flag(`event ${eventCount}: ${type} after message_stop`);
    if (type !== "message_start" && type !== "ping" && type !== "error" && starts === 0) {
      flag(`event ${eventCount}: ${type} before message_start`);
    }
    switch (type) {
      case "ping":
        return;
      case "error":
        flag(`event ${eventCount}: error event in stream`);
        return;
      case "message_start": {
        starts += 1;
        if (starts > 1) flag(`event ${eventCount}: duplicate message_start`);
        const message = asRecord(data["message"]);
        if (message === null) flag(`event ${eventCount}: message_start without message`);
        else if (asRecord(message["usage"]) === null) flag(`event ${eventCount}: message_start without usage`);
        return;
      }
      case "content_block_start": {
        const index = data["index"];
        const block = asRecord(data["content_block"]);
        if (open !== null) flag(`event ${eventCount}: block ${String(index)} starts while block ${open.index} is open`);
        if (index !== nextIndex) flag(`event ${eventCount}: block index ${String(index)}, expected ${nextIndex}`);
        const blockType = block !== null && typeof block["type"] === "string" ? block["type"] : "unknown";
        if (block === null) flag(`event ${eventCount}: content_block_start without content_block`);
        open = { index: typeof index === "number" ? index : -1, type: blockType, json: "", oversized: false, startInput: block?.["input"] };
        nextIndex = (typeof index === "number" ? index : nextIndex) + 1;
        return;
      }
      case "content_block_delta": {
        const index = data["index"];
        const delta = asRecord(data["delta"]);
        if (open === null || open.index !== index) {
          flag(`event ${eventCount}: delta for block ${String(index)} which is not open`);
          return;
        }
        const deltaType = delta !== null && typeof delta["type"] === "string" ? delta["type"] : "unknown";
        const allowed = DELTA_FOR_BLOCK[open.type];
        if (allowed !== undefined && !allowed.includes(deltaType)) {
          flag(`event ${eventCount}: ${deltaType} inside a ${open.type} block ${open.index}`);
        }
        if (deltaType === "input_json_delta") {
          const part = delta?.["partial_json"];
          if (typeof part !== "string") flag(`event ${eventCount}: input_json_delta without partial_json`);
          else if (!open.oversized) {
            if (open.json.length + part.length > MAX_TOOL_INPUT_CHARS) {
              open.oversized = true;
              open.json = "";
            } else open.json += part;
          }
        }
        return;
      }
      case "content_block_stop": {
        const index = data["index"];
        if (open === null || open.index !== index) {
          flag(`event ${eventCount}: stop for block ${String(index)} which is not open`);
          return;
        }
        closeBlock(open);
        open = null;
        return;
      }
      case "message_delta": {
        deltas += 1;
        if (open !== null) flag(`event ${eventCount}: message_delta while block ${open.index} is open`);
        if (asRecord(data["usage"]) !== null) deltaHadUsage = true;
        return;
      }
      case "message_stop": {
        stops += 1;
        if (stops > 1) flag(`event ${eventCount}: duplicate message_stop`);
        if (open !== null) flag(`event ${eventCount}: message_stop while block ${open.index} is open`);
        return;
      }
      default:
        // Unknown event types are allowed by the API's versioning policy.
        return;
    }
  };

  return {
    push(event) {
      if (finished) return undefined;
      eventCount += 1;
      if (event.truncated === true) {
        flag(`event ${eventCount}: larger than ${MAX_SSE_EVENT_BYTES} bytes, not parsed`);
        return undefined;
      }
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        flag(`event ${eventCount}: data is not JSON`);
        return undefined;
      }
      const record = asRecord(data);
      if (record === null) flag(`event ${eventCount}: data is not an object`);
      else check(event.event, record);
      return data;
    },
    finish() {
      if (!finished) {
        finished = true;
        if (starts === 0) flag("no message_start");
        if (open !== null) flag(`stream ended with block ${(open as OpenBlock).index} open`);
        if (deltas === 0) flag("no message_delta");
        else if (!deltaHadUsage) flag("message_delta carried no usage");
        if (stops === 0) flag("no message_stop");
        if (dropped > 0) violations.push(`… ${dropped} more violations`);
      }
      return { conformant: violations.length === 0, violations: [...violations], eventCount };
    },
  };
}

/** Checks a whole SSE stream held in memory (tests and callers holding a recorded stream); trusts none of its bytes. */
export function checkSseConformance(stream: string | Uint8Array): SseConformanceReport {
  const parser = createSseParser();
  const checker = createSseConformanceChecker();
  const bytes = typeof stream === "string" ? new TextEncoder().encode(stream) : stream;
  for (const event of parser.push(bytes)) checker.push(event);
  for (const event of parser.end()) checker.push(event);
  return checker.finish();
}
