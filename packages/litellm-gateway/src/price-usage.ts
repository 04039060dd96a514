import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { calcPrice } from "@pydantic/genai-prices";
import { sha256Hex } from "@wfbench/digest";
import { isOpenAiModel } from "./route-model.js";
import type { WireUsage } from "./schema.js";

/** A priced usage row: cost in USD (null when unknown) and the table entry that priced it. */
export interface PricedUsage {
  readonly costUsd: number | null;
  readonly pricedModel: string | null;
}

let cachedVersion: string | undefined;

/**
 * The pinned price table's identity, `@pydantic/genai-prices@<version>+sha256:<12 hex of its bundled data module>`,
 * recorded in every usage row so a cost can be traced to the exact data that produced it.
 */
export function readPriceTableVersion(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  const require = createRequire(import.meta.url);
  const entry = require.resolve("@pydantic/genai-prices");
  const packageJson: unknown = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
  const version =
    typeof packageJson === "object" && packageJson !== null && "version" in packageJson
      ? String(packageJson.version)
      : "unknown";
  const digest = sha256Hex(readFileSync(entry)).slice(0, 12);
  cachedVersion = `@pydantic/genai-prices@${version}+sha256:${digest}`;
  return cachedVersion;
}

function providerFor(model: string): string | null {
  if (isOpenAiModel(model)) return "openai";
  if (/^claude-/i.test(model)) return "anthropic";
  return null;
}

/**
 * Prices Anthropic-semantics wire usage (input_tokens is the uncached remainder) from the pinned table.
 * Refuses to guess: a model outside the Anthropic/OpenAI families, a model the table lacks, unknown input or output
 * tokens, or (for Anthropic ids) an unknown cache field yields a null cost, never 0. For OpenAI ids an absent cache
 * field counts as no cached tokens, because the Anthropic-shaped usage LiteLLM translates for them may omit those fields.
 */
export function priceUsage(usage: WireUsage, model: string | null): PricedUsage {
  if (model === null) return { costUsd: null, pricedModel: null };
  const providerId = providerFor(model);
  if (providerId === null) return { costUsd: null, pricedModel: null };
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } = usage;
  if (input_tokens === null || output_tokens === null) return { costUsd: null, pricedModel: null };
  // An absent cache field on an Anthropic reply means the feature was not reported, so the row cannot be priced.
  if (providerId === "anthropic" && (cache_read_input_tokens === null || cache_creation_input_tokens === null)) {
    return { costUsd: null, pricedModel: null };
  }
  const cacheRead = cache_read_input_tokens ?? 0;
  const cacheWrite = cache_creation_input_tokens ?? 0;
  const bareModel = model.replace(/^openai\//i, "");
  try {
    const result = calcPrice(
      {
        // genai-prices wants the whole prompt with cache reads/writes as partitions of it.
        input_tokens: input_tokens + cacheRead + cacheWrite,
        cache_read_tokens: cacheRead,
        cache_write_tokens: cacheWrite,
        output_tokens,
      },
      bareModel,
      { providerId },
    );
    if (result === null || !Number.isFinite(result.total_price)) return { costUsd: null, pricedModel: null };
    return { costUsd: result.total_price, pricedModel: `${result.provider.id}/${result.model.id}` };
  } catch {
    return { costUsd: null, pricedModel: null };
  }
}
