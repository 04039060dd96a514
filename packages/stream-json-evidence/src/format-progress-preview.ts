import { listContentBlocks } from "./content-blocks.js";
import { EvidenceOptionsError } from "./errors.js";
import { redactText } from "@wfbench/redact";
import { RedactionCollision, redactJson } from "./redact-text.js";
import { SecretsSchema, isJsonObject, type JsonValue, type StreamEvent } from "./schema.js";

/** Options of {@link createProgressPreviewer}. */
export interface ProgressPreviewOptions {
  readonly secrets?: readonly string[];
  /** Maximum characters per preview line (default and maximum 800). */
  readonly maxChars?: number;
}

/** Turns events into one-line previews; remembers tool names so a result can say which tool it answers. */
export interface ProgressPreviewer {
  preview(event: StreamEvent): string[];
}

const DEFAULT_MAX_CHARS = 800;
const MAX_REMEMBERED_TOOLS = 10_000;

/** Tools whose inputs and outputs are shown (redacted); others show their name only. */
export function isPreviewableTool(name: string): boolean {
  return name === "Read" || name === "Bash" || name === "Grep" || name === "Glob" || name.startsWith("mcp__");
}

/** Neutralises CI log-command syntax (GitHub Actions `::cmd::`, `##[group]`, problem-matcher `(l,c): error`). */
export function neutralizeLogCommands(text: string): string {
  return text
    .replace(/^::/gm, "[:]")
    .replace(/##\[/g, "# [")
    .replace(/\((\d+),(\d+)\): error/g, "($1,$2): compiler-error");
}

function truncateLine(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

function renderValue(value: JsonValue, secrets: readonly string[]): string {
  const redacted = redactJson(value, secrets);
  if (redacted instanceof RedactionCollision) return "[unredactable value]";
  return typeof redacted === "string" ? JSON.stringify(redacted) : (JSON.stringify(redacted) ?? "null");
}

function renderResultContent(content: JsonValue | undefined): JsonValue {
  if (!Array.isArray(content)) return content ?? null;
  const texts = content.map((block) => (isJsonObject(block) && typeof block["text"] === "string" ? block["text"] : "")).filter((text) => text !== "");
  return texts.length > 0 ? texts.join("\n") : content;
}

// An MCP tool that "succeeded" but answered with an error: a JSON object whose `error` is a string, or text that
// starts with `error:` (any case). Shown as such so a broken graph is visible in the live log.
function isSemanticError(content: JsonValue | undefined): boolean {
  const rendered = renderResultContent(content);
  if (typeof rendered !== "string") return false;
  const text = rendered.trimStart();
  if (text.slice(0, 6).toLowerCase() === "error:") return true;
  if (!text.startsWith("{")) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) && typeof parsed["error"] === "string";
  } catch {
    return false;
  }
}

/**
 * Creates a previewer for live progress lines: one redacted, single-line, CI-safe line (≤ 800 characters) per tool
 * call and per tool result. For display only: previews are never evidence and never persisted.
 * @throws {EvidenceOptionsError} on bad options.
 */
export function createProgressPreviewer(options: ProgressPreviewOptions = {}): ProgressPreviewer {
  const secretsParsed = SecretsSchema.safeParse(options.secrets ?? []);
  if (!secretsParsed.success) throw new EvidenceOptionsError(`invalid secrets: ${secretsParsed.error.message}`);
  const secrets = secretsParsed.data;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 16 || maxChars > DEFAULT_MAX_CHARS) {
    throw new EvidenceOptionsError(`maxChars must be an integer in 16..${DEFAULT_MAX_CHARS}`);
  }
  const toolNames = new Map<string, string>();

  const finish = (text: string): string => truncateLine(neutralizeLogCommands(redactText(text.replace(/[\r\n\u2028\u2029]+/g, " "), secrets)), maxChars);

  return {
    preview(event: StreamEvent): string[] {
      const marker = typeof event["parent_tool_use_id"] === "string" ? "[subagent] " : "";
      const lines: string[] = [];
      for (const block of listContentBlocks(event)) {
        if (block["type"] === "tool_use") {
          const name = typeof block["name"] === "string" ? block["name"] : "tool";
          if (typeof block["id"] === "string" && toolNames.size < MAX_REMEMBERED_TOOLS) toolNames.set(block["id"], name);
          const input = isPreviewableTool(name) && block["input"] !== undefined ? ` ${renderValue(block["input"], secrets)}` : "";
          lines.push(finish(`${marker}→ ${name}${input}`));
        } else if (block["type"] === "tool_result") {
          const id = block["tool_use_id"];
          const name = typeof id === "string" ? (toolNames.get(id) ?? "tool") : "tool";
          const status = block["is_error"] === true ? " (error)" : name.startsWith("mcp__") && isSemanticError(block["content"]) ? " (semantic-error)" : "";
          const output = isPreviewableTool(name) ? ` ${renderValue(renderResultContent(block["content"]), secrets)}` : "";
          lines.push(finish(`${marker}← ${name}${status}${output}`));
        }
      }
      return lines;
    },
  };
}
