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
  it("ignores a usage object with invalid (negative or non-integer) counts", () => {
    const base = { ...emptyUsage(), input_tokens: 1 };
    expect(mergeUsage(base, { input_tokens: -1 })).toEqual(base);
    expect(mergeUsage(base, { output_tokens: 1.5 })).toEqual(base);
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
