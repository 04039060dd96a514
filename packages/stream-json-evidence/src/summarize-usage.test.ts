import { describe, expect, it } from "vitest";
import { assistant, encode, init, jsonl, result } from "../test/support/events.js";
import { parseEvidenceBytes, type ParsedEvidenceStream } from "./parse-evidence-stream.js";
import type { JsonObject, JsonValue } from "./schema.js";
import { summarizeUsage } from "./summarize-usage.js";

function stream(events: JsonObject[]): ParsedEvidenceStream {
  const parsed = parseEvidenceBytes(encode(jsonl(events)));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const model = (costBasis: JsonValue | undefined, costUSD: JsonValue = 0.01): JsonObject => {
  const entry: JsonObject = { inputTokens: 10, outputTokens: 4, cacheReadInputTokens: 3, cacheCreationInputTokens: 2, costUSD };
  if (costBasis !== undefined) entry["costBasis"] = costBasis;
  return entry;
};

describe("summarizeUsage", () => {
  it("takes usage from the result and never sums assistant snapshots", () => {
    const summary = summarizeUsage(stream([init(), assistant([{ type: "text", text: "a" }]), assistant([{ type: "text", text: "bb" }]), result()]));
    expect(summary.usage).toEqual({ inputTokens: 10, cacheCreationInputTokens: 2, cacheReadInputTokens: 3, outputTokens: 4 });
    expect(summary).toMatchObject({ numTurns: 2, durationMs: 1500, durationSeconds: 1.5, costUsd: 0.01, costUnmeasuredReason: null, costBases: ["list"], mainLoopMessages: 2 });
    expect(summary.models).toEqual([
      { model: "claude-sonnet-4-5", inputTokens: 10, outputTokens: 4, cacheReadInputTokens: 3, cacheCreationInputTokens: 2, costUsd: 0.01, costBasis: "list" },
    ]);
  });

  it("keeps a measured zero as zero, including when nothing was counted (modelUsage {})", () => {
    expect(summarizeUsage(stream([result({ total_cost_usd: 0, modelUsage: { "claude-m": model("list", 0) } })])).costUsd).toBe(0);
    expect(summarizeUsage(stream([result({ total_cost_usd: 0, modelUsage: {} })])).costUsd).toBe(0);
  });

  it.each([
    ["missing", { total_cost_usd: null }],
    ["boolean", { total_cost_usd: true }],
    ["negative", { total_cost_usd: -0.5 }],
    ["a string", { total_cost_usd: "0.01" }],
    ["of unknown basis", { modelUsage: { "gpt-5.6-sol": model("unknown") } }],
    ["of absent basis", { modelUsage: { m: model(undefined) } }],
    ["partly unknown", { modelUsage: { a: model("list"), b: model("unknown") } }],
    ["without modelUsage", { modelUsage: null }],
    ["non-zero with an empty modelUsage", { modelUsage: {} }],
    ["priced for a non-Anthropic model, even with a list basis", { modelUsage: { "gpt-5.6-sol": model("list") } }],
    ["priced for a model whose canonical id is not Anthropic's", { modelUsage: { "claude-sonnet-4-5": { ...model("list"), canonicalModel: "gpt-5.6-sol" } } }],
  ])("reports a cost that is %s as unmeasured (null)", (_label, fields) => {
    const summary = summarizeUsage(stream([result(fields as JsonObject)]));
    expect(summary.costUsd).toBeNull();
    expect(summary.costUnmeasuredReason).toEqual(expect.any(String));
  });

  it("accepts managed pricing as a known basis and nulls per-model costs of unknown basis", () => {
    const summary = summarizeUsage(stream([result({ modelUsage: { "claude-a": model("managed", 0.004), "claude-b": model("list", 0.006) } })]));
    expect(summary.costUsd).toBe(0.01);
    const unknown = summarizeUsage(stream([result({ modelUsage: { a: model("unknown", 0.004) } })]));
    expect(unknown.models[0]?.costUsd).toBeNull();
  });

  it("falls back to wall time only when duration_ms is unusable", () => {
    expect(summarizeUsage(stream([result({ duration_ms: null })]), { wallTimeMs: 2500 }).durationSeconds).toBe(2.5);
    expect(summarizeUsage(stream([result()]), { wallTimeMs: 2500 }).durationSeconds).toBe(1.5);
    expect(summarizeUsage(stream([result({ duration_ms: "x" })])).durationSeconds).toBeNull();
  });

  it.each([
    ["missing", undefined],
    ["negative", -1],
    ["fractional", 2.5],
    ["a string", "12"],
  ])("reports per-model token counts that are %s as null, never 0", (_label, value) => {
    const entry: JsonObject = { ...model("list") };
    if (value === undefined) delete entry["inputTokens"];
    else entry["inputTokens"] = value;
    const summary = summarizeUsage(stream([result({ modelUsage: { "claude-sonnet-4-5": entry } })]));
    expect(summary.models[0]?.inputTokens).toBeNull();
  });

  it("never sums assistant usage snapshots, even when the result has none", () => {
    const summary = summarizeUsage(stream([assistant([{ type: "text", text: "a" }]), result({ usage: null })]));
    expect(summary.usage).toBeNull();
  });

  it("reports null usage when the result lacks it", () => {
    expect(summarizeUsage(stream([result({ usage: { input_tokens: 1 } })])).usage).toBeNull();
  });

  it("groups subagent traffic by parent_tool_use_id and counts distinct messages", () => {
    const sub = (id: string, parent: string, text: string): JsonObject => {
      const event = assistant([{ type: "text", text }], { parent_tool_use_id: parent });
      return { ...event, message: { ...(event["message"] as JsonObject), id, model: "claude-haiku-4-5" } };
    };
    const summary = summarizeUsage(stream([sub("m1", "task-b", "x"), sub("m1", "task-b", "y"), sub("m2", "task-a", "z"), result()]));
    expect(summary.subagents).toEqual([
      { parentToolUseId: "task-a", assistantEvents: 1, messages: 1, models: ["claude-haiku-4-5"] },
      { parentToolUseId: "task-b", assistantEvents: 2, messages: 1, models: ["claude-haiku-4-5"] },
    ]);
    expect(summary.mainLoopMessages).toBe(0);
  });
});
