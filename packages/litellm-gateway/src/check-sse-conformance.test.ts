import { describe, expect, it } from "vitest";
import { buildEvents, buildStream, frame } from "../test/support/sse.js";
import { MAX_SSE_VIOLATIONS, MAX_TOOL_INPUT_CHARS, checkSseConformance, createSseConformanceChecker } from "./check-sse-conformance.js";

type Event = Record<string, unknown>;
const stream = (events: Event[]): string => events.map((e) => frame(e)).join("");
const withTool = (): Event[] => buildEvents({ toolInputJson: ['{"command":', '"ls"}'] });

describe("checkSseConformance", () => {
  describe("a well-formed stream", () => {
    it("returns conformant for text plus a tool_use split across deltas", () => {
      const report = checkSseConformance(buildStream({ toolInputJson: ['{"command":', '"ls"}'] }));
      expect(report).toEqual({ conformant: true, violations: [], eventCount: 11 });
    });

    it("accepts a tool_use block with no deltas and an object start input", () => {
      const events = buildEvents({ toolInputJson: [] });
      expect(checkSseConformance(stream(events)).conformant).toBe(true);
    });
  });

  describe("a broken stream", () => {
    it.each<[string, (events: Event[]) => Event[], RegExp]>([
      ["a missing content_block_stop", (e) => e.filter((x) => !(x["type"] === "content_block_stop" && x["index"] === 0)), /not open|is open/],
      ["a duplicate message_start", (e) => [e[0] as Event, ...e], /duplicate message_start/],
      ["a duplicate message_stop", (e) => [...e, { type: "message_stop" }], /duplicate message_stop|after message_stop/],
      ["no message_stop", (e) => e.slice(0, -1), /no message_stop/],
      ["no message_delta", (e) => e.filter((x) => x["type"] !== "message_delta"), /no message_delta/],
      ["message_delta without usage", (e) => e.map((x) => (x["type"] === "message_delta" ? { type: "message_delta", delta: {} } : x)), /carried no usage/],
      ["message_start without usage", (e) => e.map((x) => (x["type"] === "message_start" ? { type: "message_start", message: { id: "m" } } : x)), /message_start without usage/],
      ["a skipped block index", (e) => e.map((x) => (x["index"] === 1 ? { ...x, index: 2 } : x)), /expected 1/],
      ["tool_use input that is not JSON", (e) => e.map((x) => (x["type"] === "content_block_delta" && x["index"] === 1 ? { ...x, delta: { type: "input_json_delta", partial_json: "{" } } : x)), /does not parse as JSON/],
      ["a thinking delta inside a text block", (e) => e.map((x) => (x["type"] === "content_block_delta" && x["index"] === 0 ? { ...x, delta: { type: "thinking_delta", thinking: "t" } } : x)), /thinking_delta inside a text block/],
      ["an error event", (e) => [...e.slice(0, 2), { type: "error", error: { type: "overloaded_error" } }, ...e.slice(2)], /error event/],
    ])("flags %s", (_name, mutate, pattern) => {
      const report = checkSseConformance(stream(mutate(withTool())));
      expect(report.conformant).toBe(false);
      expect(report.violations.join("\n")).toMatch(pattern);
    });

    it("flags data that is not JSON and an event name that disagrees with the data type", () => {
      const text = `${frame(buildEvents()[0] as Event, "ping")}data: {nope\n\n`;
      const report = checkSseConformance(text);
      expect(report.violations).toEqual(
        expect.arrayContaining([expect.stringMatching(/differs from data type/), expect.stringMatching(/not JSON/)]),
      );
    });

    it("flags an event the parser dropped for its size instead of parsing it", () => {
      const checker = createSseConformanceChecker();
      for (const event of buildEvents().slice(0, 3)) checker.push({ event: String(event["type"]), data: JSON.stringify(event) });
      expect(checker.push({ event: "content_block_delta", data: "", truncated: true })).toBeUndefined();
      expect(checker.finish().violations.join("\n")).toMatch(/event 4: larger than \d+ bytes, not parsed/);
    });

    it("holds at most MAX_TOOL_INPUT_CHARS of one block's tool_use input and flags the rest", () => {
      const checker = createSseConformanceChecker();
      const events = buildEvents({ toolInputJson: ['{"a":"'] });
      const toolStart = events.findIndex((e) => e["type"] === "content_block_start" && e["index"] === 1);
      for (const event of events.slice(0, toolStart + 2)) checker.push({ event: String(event["type"]), data: JSON.stringify(event) });
      const piece = JSON.stringify({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "x".repeat(1024 * 1024) } });
      for (let i = 0; i < MAX_TOOL_INPUT_CHARS / (1024 * 1024) + 4; i += 1) checker.push({ event: "content_block_delta", data: piece });
      const end = JSON.stringify({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"}' } });
      checker.push({ event: "content_block_delta", data: end });
      for (const event of events.slice(toolStart + 2)) checker.push({ event: String(event["type"]), data: JSON.stringify(event) });
      const report = checker.finish();
      expect(report.violations).toEqual([expect.stringMatching(/block 1: tool_use input longer than \d+ characters, not checked/)]);
    });

    it("caps the violation list", () => {
      const garbage = "data: x\n\n".repeat(100);
      const report = checkSseConformance(garbage);
      expect(report.violations.length).toBe(MAX_SSE_VIOLATIONS + 1);
      expect(report.violations.at(-1)).toMatch(/more violations/);
    });
  });
});
