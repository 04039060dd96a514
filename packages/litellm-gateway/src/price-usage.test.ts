import { calcPrice } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import { priceUsage, readPriceTableVersion } from "./price-usage.js";

const FULL = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 300, cache_creation_input_tokens: 50 };

describe("priceUsage", () => {
  it("returns the table price with cache tokens treated as partitions of the whole prompt", () => {
    const expected = calcPrice(
      { input_tokens: 1350, cache_read_tokens: 300, cache_write_tokens: 50, output_tokens: 200 },
      "claude-sonnet-4-5",
      { providerId: "anthropic" },
    );
    expect(expected).not.toBeNull();
    const priced = priceUsage(FULL, "claude-sonnet-4-5");
    expect(priced.costUsd).toBeCloseTo(expected?.total_price ?? Number.NaN, 12);
    expect(priced.pricedModel).toBe("anthropic/claude-sonnet-4-5");
    // Cache reads are cheaper than fresh input, so treating them as fresh input would cost more.
    const allFresh = priceUsage({ ...FULL, input_tokens: 1350, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, "claude-sonnet-4-5");
    expect(priced.costUsd).not.toBe(allFresh.costUsd);
  });

  it("prices OpenAI ids with or without the openai/ prefix the same", () => {
    const bare = priceUsage(FULL, "gpt-4.1");
    expect(bare.costUsd).toBeGreaterThan(0);
    expect(priceUsage(FULL, "openai/gpt-4.1")).toEqual(bare);
  });

  it("prices an OpenAI id whose cache fields are absent as uncached, but never an Anthropic one", () => {
    const noCache = { ...FULL, cache_read_input_tokens: null, cache_creation_input_tokens: null };
    expect(priceUsage(noCache, "gpt-4.1")).toEqual(priceUsage({ ...noCache, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, "gpt-4.1"));
    expect(priceUsage(noCache, "gpt-4.1").costUsd).toBeGreaterThan(0);
    expect(priceUsage(noCache, "claude-sonnet-4-5")).toEqual({ costUsd: null, pricedModel: null });
  });

  it.each([["free-coder"], ["scripted-model"], ["claude-does-not-exist-9"]])("returns null cost for unknown model %s", (model) => {
    expect(priceUsage(FULL, model)).toEqual({ costUsd: null, pricedModel: null });
  });

  it("returns null cost when a needed usage field is unknown or the model is unknown", () => {
    expect(priceUsage({ ...FULL, output_tokens: null }, "claude-sonnet-4-5").costUsd).toBeNull();
    expect(priceUsage({ ...FULL, cache_read_input_tokens: null }, "claude-sonnet-4-5").costUsd).toBeNull();
    expect(priceUsage(FULL, null).costUsd).toBeNull();
  });
});

describe("readPriceTableVersion", () => {
  it("returns the pinned package version with a digest of its bundled data", () => {
    expect(readPriceTableVersion()).toMatch(/^@pydantic\/genai-prices@0\.1\.8\+sha256:[0-9a-f]{12}$/);
  });
});
