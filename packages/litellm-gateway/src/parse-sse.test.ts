import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_SSE_EVENT_BYTES, createSseParser } from "./parse-sse.js";
import type { SseEvent } from "./parse-sse.js";

function parseAll(chunks: readonly string[]): SseEvent[] {
  const parser = createSseParser();
  const encoder = new TextEncoder();
  const out: SseEvent[] = [];
  for (const chunk of chunks) out.push(...parser.push(encoder.encode(chunk)));
  out.push(...parser.end());
  return out;
}

const STREAM = 'event: message_start\ndata: {"a":1}\n\n: comment\nevent: ping\ndata: {"type":"ping"}\n\ndata: line1\ndata: line2\n\n';

describe("createSseParser", () => {
  it("returns events with names and joined multi-line data, skipping comments", () => {
    expect(parseAll([STREAM])).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { event: "ping", data: '{"type":"ping"}' },
      { event: null, data: "line1\nline2" },
    ]);
  });

  it("returns the same events for CRLF and CR line ends", () => {
    const expected = parseAll([STREAM]);
    expect(parseAll([STREAM.replaceAll("\n", "\r\n")])).toEqual(expected);
    expect(parseAll([STREAM.replaceAll("\n", "\r")])).toEqual(expected);
  });

  it("returns the same events however the bytes are chunked (also inside CRLF and multi-byte chars)", () => {
    const text = `${STREAM.replaceAll("\n", "\r\n")}data: {"t":"héllo ✓ 🎉"}\r\n\r\n`;
    const bytes = new TextEncoder().encode(text);
    const whole = parseAll([text]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set([0, ...cuts, bytes.length])].sort((a, b) => a - b);
        const parser = createSseParser();
        const out: SseEvent[] = [];
        for (let i = 1; i < points.length; i += 1) out.push(...parser.push(bytes.slice(points[i - 1], points[i])));
        out.push(...parser.end());
        expect(out).toEqual(whole);
      }),
    );
  });

  it("flushes a trailing event that lost its blank line", () => {
    expect(parseAll(['data: {"x":1}'])).toEqual([{ event: null, data: '{"x":1}' }]);
  });

  it("drops a line that never ends once it outgrows the bound, reports its event as truncated and parses on after it", () => {
    const parser = createSseParser();
    const encoder = new TextEncoder();
    const mib = new Uint8Array(1024 * 1024).fill(0x78);
    const out: SseEvent[] = [...parser.push(encoder.encode("event: content_block_delta\ndata: "))];
    // A hostile upstream: 40 MiB of one data line in 1 MiB pieces, held by nobody.
    for (let i = 0; i < 40; i += 1) out.push(...parser.push(mib));
    out.push(...parser.push(encoder.encode('\r')), ...parser.push(encoder.encode('\n\ndata: {"ok":1}\n\n')));
    out.push(...parser.end());
    expect(MAX_SSE_EVENT_BYTES).toBeLessThan(40 * 1024 * 1024);
    expect(out).toEqual([
      { event: "content_block_delta", data: "", truncated: true },
      { event: null, data: '{"ok":1}' },
    ]);
  });

  it("drops the data of an event whose many lines together outgrow the bound", () => {
    const parser = createSseParser();
    const line = new TextEncoder().encode(`data: ${"y".repeat(1023)}\n`);
    const out: SseEvent[] = [];
    for (let i = 0; i < (MAX_SSE_EVENT_BYTES / 1024) + 10; i += 1) out.push(...parser.push(line));
    out.push(...parser.push(new TextEncoder().encode('\ndata: {"ok":2}\n\n')));
    expect(out).toEqual([{ event: null, data: "", truncated: true }, { event: null, data: '{"ok":2}' }]);
  });
});
