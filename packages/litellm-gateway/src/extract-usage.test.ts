import { describe, expect, it } from "vitest";
import { buildEvents } from "../test/support/sse.js";
import { createUsageAccumulator, extractUsageFromMessage, mergeUsage, emptyUsage } from "./extract-usage.js";

describe("createUsageAccumulator", () => {
  it("returns message_delta fields overriding message_start ones and keeps start-only fields", () => {
    const acc = createUsageAccumulator();
    for (const event of buildEvents({
      model: "claude-x",
      startUsage: { input_tokens: 0, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 12 },
      deltaUsage: { input_tokens: 77, cache_read_input_tokens: 5, output_tokens: 9 },
    })) {
      acc.push(event);
    }
    expect(acc.result()).toEqual({
      model: "claude-x",
      messageId: expect.any(String),
      sawUsage: true,
      usage: { input_tokens: 77, output_tokens: 9, cache_read_input_tokens: 5, cache_creation_input_tokens: 12 },
    });
  });

  it("returns null, never 0, for fields no event carried", () => {
    const acc = createUsageAccumulator();
    acc.push({ type: "message_start", message: { model: "m", usage: { input_tokens: 3 } } });
    acc.push({ type: "message_delta", usage: { output_tokens: 4, cache_read_input_tokens: null } });
    expect(acc.result().usage).toEqual({
      input_tokens: 3,
      output_tokens: 4,
      cache_read_input_tokens: null,
      cache_creation_input_tokens: null,
    });
  });

  it("reports sawUsage false and all-null usage when no usage arrived", () => {
    const acc = createUsageAccumulator();
    acc.push({ type: "message_start", message: { model: "m" } });
    acc.push("garbage");
    acc.push(null);
    expect(acc.result()).toEqual({ model: "m", messageId: null, sawUsage: false, usage: emptyUsage() });
  });

  it("keeps the first message_start's id, bounded, and ignores ids that are not strings", () => {
    const acc = createUsageAccumulator();
    acc.push({ type: "message_start", message: { id: 42, model: "m" } });
    acc.push({ type: "message_start", message: { id: `msg_${"x".repeat(300)}`, model: "m" } });
    acc.push({ type: "message_start", message: { id: "msg_second", model: "m" } });
    expect(acc.result().messageId).toBe(`msg_${"x".repeat(196)}`);
  });
});

describe("mergeUsage", () => {
  const start = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

  it.each<[string, unknown, Partial<Record<keyof typeof start, number | null>>]>([
    ["negative", { input_tokens: 46, output_tokens: -1 }, { input_tokens: 46, output_tokens: null }],
    ["fractional", { output_tokens: 1.5, cache_read_input_tokens: 5 }, { output_tokens: null, cache_read_input_tokens: 5 }],
    ["a string", { output_tokens: "401" }, { output_tokens: null }],
    ["an object", { cache_creation_input_tokens: { ephemeral_5m_input_tokens: 3 } }, { cache_creation_input_tokens: null }],
  ])("makes a %s count unknown (not the base's 0) and still applies the readable ones", (_name, next, changed) => {
    expect(mergeUsage(start, next)).toEqual({ ...start, ...changed });
  });

  it("keeps the base for absent or null fields, and for an absent or null usage", () => {
    expect(mergeUsage(start, { output_tokens: 9, input_tokens: null, server_tool_use: { web_search_requests: 1 } })).toEqual({ ...start, output_tokens: 9 });
    expect(mergeUsage(start, undefined)).toEqual(start);
    expect(mergeUsage(start, null)).toEqual(start);
  });

  it.each([["a string", "401 tokens"], ["a number", 401], ["an array", [1, 2]]])("makes every field unknown for a usage that is %s", (_name, next) => {
    expect(mergeUsage(start, next)).toEqual(emptyUsage());
  });
});

describe("extractUsageFromMessage", () => {
  it("returns usage and model of a non-streaming message", () => {
    expect(
      extractUsageFromMessage({ type: "message", id: "msg_y", model: "claude-y", usage: { input_tokens: 2, output_tokens: 3 } }),
    ).toEqual({
      model: "claude-y",
      messageId: "msg_y",
      usage: { input_tokens: 2, output_tokens: 3, cache_read_input_tokens: null, cache_creation_input_tokens: null },
    });
  });

  it("returns all-null usage for an error body", () => {
    expect(extractUsageFromMessage({ type: "error", error: { type: "overloaded_error" } })).toEqual({
      model: null,
      messageId: null,
      usage: emptyUsage(),
    });
  });
});
