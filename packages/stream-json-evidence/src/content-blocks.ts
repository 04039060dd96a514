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

