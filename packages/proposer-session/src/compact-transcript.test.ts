import { describe, expect, it } from "vitest";
import { compactText, compactTranscript } from "./compact-transcript.js";

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

describe("compactTranscript", () => {
  it("keeps 2048 characters at each end of a string over 4096 and omits signatures, at any depth", () => {
    const long = `${"a".repeat(3000)}${"b".repeat(2000)}${"c".repeat(3000)}`;
    const { text } = compactTranscript(line({ type: "assistant", message: { content: [{ type: "thinking", thinking: long, signature: "sig-bytes" }] } }), 1 << 20);
    const event = JSON.parse(text) as { message: { content: { thinking: string; signature: string }[] } };
    const block = event.message.content[0];
    expect(block?.signature).toBe("[OMITTED]");
    expect(block?.thinking).toBe(`${long.slice(0, 2048)}…[compacted ${long.length - 4096} chars]…${long.slice(-2048)}`);
  });

  it("leaves a string of exactly 4096 characters alone", () => {
    const exact = "x".repeat(4096);
    expect(JSON.parse(compactTranscript(line({ text: exact }), 1 << 20).text)).toEqual({ text: exact });
  });

  it("keeps whole events newest first within the cap and writes them back in order", () => {
    const events = Array.from({ length: 10 }, (_, index) => line({ index, pad: "p".repeat(100) }));
    const size = Buffer.byteLength(events[0] as string);
    const { text, keptEvents, droppedEvents } = compactTranscript(events.join(""), size * 3 + size - 1);
    expect(keptEvents).toBe(3);
    expect(droppedEvents).toBe(7);
    expect(text.trimEnd().split("\n").map((event) => (JSON.parse(event) as { index: number }).index)).toEqual([7, 8, 9]);
  });

  it("never cuts an event: one larger than the cap is dropped whole", () => {
    const { text, keptEvents } = compactTranscript(line({ big: "y".repeat(4000) }), 100);
    expect(text).toBe("");
    expect(keptEvents).toBe(0);
  });
});

describe("compactText", () => {
  it("keeps head and tail halves around a marker and fits the cap", () => {
    const source = `${"h".repeat(600)}${"t".repeat(600)}`;
    const out = compactText(source, 400);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(400);
    expect(out).toContain("… [compacted 1200 source bytes] …");
    expect(out.startsWith("hhh")).toBe(true);
    expect(out.endsWith("ttt")).toBe(true);
  });

  it("returns a text within the cap unchanged", () => {
    expect(compactText("small", 400)).toBe("small");
  });
});
