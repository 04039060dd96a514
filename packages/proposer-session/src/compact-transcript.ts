/** A string field longer than this is compacted (reference §9.2). */
export const MAX_TRANSCRIPT_STRING_CHARS = 4096;
/** Characters kept at each end of a compacted string. */
const KEEP_CHARS = 2048;

function compactValue(value: unknown, key: string | null): unknown {
  if (key === "signature") return "[OMITTED]";
  if (typeof value === "string") {
    if (value.length <= MAX_TRANSCRIPT_STRING_CHARS) return value;
    return `${value.slice(0, KEEP_CHARS)}…[compacted ${value.length - 2 * KEEP_CHARS} chars]…${value.slice(-KEEP_CHARS)}`;
  }
  if (Array.isArray(value)) return value.map((item) => compactValue(item, null));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, compactValue(v, k)]));
  }
  return value;
}

/**
 * Compacts a stream-json transcript for the proposer (reference §9.2): every string longer than 4096 characters keeps
 * 2048 at each end around a marker, every `signature` value becomes `[OMITTED]`, then whole events are kept newest
 * first while they fit in `maxBytes` and are written back in chronological order. No event is ever cut; a line that
 * is not JSON is kept as a JSON string so nothing in it is interpreted.
 */
export function compactTranscript(text: string, maxBytes: number): { text: string; keptEvents: number; droppedEvents: number } {
  const events = text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = line;
    }
    return `${JSON.stringify(compactValue(parsed, null))}\n`;
  });
  const kept: string[] = [];
  let bytes = 0;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index] as string;
    const size = Buffer.byteLength(event);
    if (bytes + size > maxBytes) break;
    kept.push(event);
    bytes += size;
  }
  kept.reverse();
  return { text: kept.join(""), keptEvents: kept.length, droppedEvents: events.length - kept.length };
}

/** An oversized text file keeps its head and tail halves around a marker (reference §9.2); fits in `maxBytes`. */
export function compactText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  const marker = `\n… [compacted ${bytes.length} source bytes] …\n`;
  const half = Math.max(0, Math.floor((maxBytes - Buffer.byteLength(marker)) / 2));
  // Decoding a cut multi-byte sequence yields U+FFFD (3 bytes); trim the ends so the result stays within the cap.
  const head = bytes.subarray(0, half).toString("utf8").replace(/\uFFFD$/u, "");
  const tail = bytes.subarray(bytes.length - half).toString("utf8").replace(/^\uFFFD/u, "");
  return `${head}${marker}${tail}`;
}
