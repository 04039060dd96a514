import { inspectJsonGraph } from "@wfbench/digest";
import { MAX_EVENT_DEPTH, type JsonValue } from "./schema.js";

/** What makes a parsed line unusable as an event: a number that is not finite, or nesting past the bound. */
export type JsonValueDefect = "non-finite-number" | "nesting-too-deep";

/**
 * Finds the first defect of a value JSON.parse returned (which parses any depth without recursion): a non-finite number
 * (`1e999`) or nesting deeper than `maxDepth` levels. Trusts `value` to be JSON.parse output (a tree of plain data);
 * digest's iterative walk does the work, so a hostile depth cannot overflow the stack here.
 */
export function findJsonValueDefect(value: JsonValue, maxDepth: number = MAX_EVENT_DEPTH): JsonValueDefect | null {
  const defect = inspectJsonGraph(value, { maxDepth, pathKeys: 0, tree: true });
  if (defect === null) return null;
  // JSON.parse output has no cycles, no shared values and nothing but JSON data, so depth is the only other defect.
  return defect.kind === "non-finite-number" ? "non-finite-number" : "nesting-too-deep";
}

/**
 * True when the JSON text opens more than `maxDepth` nested arrays/objects (brackets inside string literals do not
 * count). A linear scan run before JSON.parse, so a hostile line of 8 MiB of `[` is refused without building millions
 * of nested values; text that is not JSON is only scanned, never judged here.
 */
export function exceedsNestingDepth(text: string, maxDepth: number = MAX_EVENT_DEPTH): boolean {
  // Fast path for ordinary events: too few opening brackets to nest that deep (native indexOf, no per-char loop).
  if (countAtMost(text, "[", maxDepth + 1) + countAtMost(text, "{", maxDepth + 1) <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

function countAtMost(text: string, needle: string, limit: number): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1 && count < limit; index = text.indexOf(needle, index + 1)) count += 1;
  return count;
}
