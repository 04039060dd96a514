/** One message part of a transcript, as the drill-down shows it. */
export interface ConversationItem {
  readonly role: "assistant" | "user" | "system" | "result";
  readonly kind: "text" | "thinking" | "tool_use" | "tool_result" | "event";
  /** Tool name for tool_use; the event subtype for system/result lines. */
  readonly name: string | null;
  readonly text: string;
  /** The skill proof: a `Skill` tool call, or the result answering one. */
  readonly skill: boolean;
  readonly error: boolean;
}

/** Longest text kept per item: a transcript is for reading, and one huge tool result must not bloat report.html. */
export const MAX_ITEM_CHARS = 20_000;

function clip(text: string): string {
  return text.length <= MAX_ITEM_CHARS ? text : `${text.slice(0, MAX_ITEM_CHARS)}\n… (${text.length - MAX_ITEM_CHARS} more characters in the transcript file)`;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((part) => (typeof asRecord(part)?.["text"] === "string" ? String(asRecord(part)?.["text"]) : JSON.stringify(part))).join("\n");
  return JSON.stringify(value, null, 2) ?? "";
}

/**
 * Turns a stream-json transcript (one JSON event per line) into conversation items: assistant text, thinking and tool
 * calls, the tool results, the init and result events. Pure; trusts nothing in the text: an unparseable line becomes
 * an `event` item carrying the raw line, every string stays data for the page to render as text.
 */
export function toConversation(transcript: string): ConversationItem[] {
  const items: ConversationItem[] = [];
  const skillCalls = new Set<string>();
  for (const line of transcript.split("\n")) {
    if (line.trim() === "") continue;
    let event: Record<string, unknown> | null;
    try {
      event = asRecord(JSON.parse(line));
    } catch {
      event = null;
    }
    if (event === null) {
      items.push({ role: "system", kind: "event", name: "unparseable line", text: clip(line), skill: false, error: true });
      continue;
    }
    const type = event["type"];
    if (type === "assistant" || type === "user") {
      const content = asRecord(event["message"])?.["content"];
      const parts = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
      for (const raw of parts) {
        const part = asRecord(raw);
        if (part === null) continue;
        if (part["type"] === "text") items.push({ role: type, kind: "text", name: null, text: clip(String(part["text"] ?? "")), skill: false, error: false });
        else if (part["type"] === "thinking") items.push({ role: type, kind: "thinking", name: null, text: clip(String(part["thinking"] ?? "")), skill: false, error: false });
        else if (part["type"] === "tool_use") {
          const name = String(part["name"] ?? "");
          const skill = name === "Skill";
          if (skill && typeof part["id"] === "string") skillCalls.add(part["id"]);
          items.push({ role: type, kind: "tool_use", name, text: clip(stringify(part["input"])), skill, error: false });
        } else if (part["type"] === "tool_result") {
          const skill = typeof part["tool_use_id"] === "string" && skillCalls.has(part["tool_use_id"]);
          items.push({ role: "user", kind: "tool_result", name: null, text: clip(stringify(part["content"])), skill, error: part["is_error"] === true });
        }
      }
    } else if (type === "system" && event["subtype"] === "init") {
      const skills = Array.isArray(event["skills"]) ? event["skills"].map(String).join(", ") : "";
      items.push({ role: "system", kind: "event", name: "init", text: `model ${String(event["model"] ?? "?")}, Claude Code ${String(event["claude_code_version"] ?? "?")}, skills: ${skills || "none"}`, skill: false, error: false });
    } else if (type === "result") {
      const text = `${String(event["subtype"] ?? "")}: ${String(event["num_turns"] ?? "?")} turns, ${String(event["duration_ms"] ?? "?")} ms${typeof event["result"] === "string" ? `\n${event["result"]}` : ""}`;
      items.push({ role: "result", kind: "event", name: "result", text: clip(text), skill: false, error: event["is_error"] === true });
    }
  }
  return items;
}
