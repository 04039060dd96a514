import { listContentBlocks } from "./content-blocks.js";
import { TOOL_NAME_PATTERN, type StreamEvent } from "./schema.js";

/** Tool-use tallies of the evidence window. */
export interface ToolUseCounts {
  /** Sanitised tool name → number of tool_use blocks. */
  readonly toolUseCounts: Readonly<Record<string, number>>;
  /** tool_use blocks whose raw name starts with `mcp__gitnexus`. */
  readonly gitnexusToolUses: number;
  /** tool_use blocks inside subagent traffic (events with a non-null `parent_tool_use_id`). */
  readonly subagentToolUses: number;
}

/** Maps a raw tool name to `[A-Za-z0-9._:-]{1,64}` or `tool`, so a model cannot inject arbitrary keys into a row. */
export function sanitizeToolName(name: unknown): string {
  return typeof name === "string" && TOOL_NAME_PATTERN.test(name) ? name : "tool";
}

/** Counts tool_use blocks per sanitised name; trusts only the events handed in (pass the evidence window). */
export function countToolUses(events: readonly StreamEvent[]): ToolUseCounts {
  const counts = new Map<string, number>();
  let gitnexusToolUses = 0;
  let subagentToolUses = 0;
  for (const event of events) {
    const parent = event["parent_tool_use_id"];
    for (const block of listContentBlocks(event)) {
      if (block["type"] !== "tool_use") continue;
      const name = block["name"];
      const key = sanitizeToolName(name);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (typeof name === "string" && name.startsWith("mcp__gitnexus")) gitnexusToolUses += 1;
      if (parent !== undefined && parent !== null) subagentToolUses += 1;
    }
  }
  const toolUseCounts: Record<string, number> = {};
  for (const key of [...counts.keys()].sort()) toolUseCounts[key] = counts.get(key) ?? 0;
  return { toolUseCounts, gitnexusToolUses, subagentToolUses };
}
