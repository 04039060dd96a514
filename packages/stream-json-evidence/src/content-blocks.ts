import { isJsonObject, type JsonObject, type StreamEvent } from "./schema.js";

/** The content blocks of an event: `message.content` when present, else `content`; non-object entries are skipped. */
export function listContentBlocks(event: StreamEvent): JsonObject[] {
  const message = event["message"];
  const content = isJsonObject(message) && message["content"] !== undefined ? message["content"] : event["content"];
  if (!Array.isArray(content)) return [];
  return content.filter(isJsonObject);
}

/** Text of an event's content, whether the CLI wrote a plain string or text blocks. */
export function readContentText(event: StreamEvent): string {
  const message = event["message"];
  const content = isJsonObject(message) && message["content"] !== undefined ? message["content"] : event["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isJsonObject)
    .map((block) => (block["type"] === "text" && typeof block["text"] === "string" ? block["text"] : ""))
    .join("");
}

/**
 * Python `str.casefold()` as far as comparisons with ASCII names go: upper then lower folds ſ, K, ß and ligatures onto
 * ASCII. Two code points differ from a plain upper/lower round trip and are fixed here: ẞ (U+1E9E) folds to "ss" (a
 * second round trip), and dotless ı (U+0131) must stay itself (its upper case is ASCII I, but casefold keeps it).
 */
export function foldCase(text: string): string {
  if (/^[\u0000-\u007f]*$/u.test(text)) return text.toLowerCase();
  let out = "";
  for (const char of text) out += char === "\u0131" ? char : char.toUpperCase().toLowerCase().toUpperCase().toLowerCase();
  return out;
}
