import { describe, expect, it } from "vitest";
import { isOpenAiModel, resolveModelAccess, toLiteLlmModel } from "./route-model.js";

describe("isOpenAiModel", () => {
  it.each(["gpt-4.1", "gpt-4o-mini", "openai/gpt-4.1", "o3", "o4-mini", "chatgpt-4o-latest", "GPT-5", "OpenAI/o1", "openai/qwen2.5-coder:7b", "openai/llama3.1:8b"])(
    "returns true for %s",
    (model) => expect(isOpenAiModel(model)).toBe(true),
  );
  it.each(["claude-sonnet-5", "free-coder", "pinned-model", "omni", "my-gpt-4", "openai/", "openai/ x", "qwen2.5-coder:7b", "o"])("returns false for %s", (model) =>
    expect(isOpenAiModel(model)).toBe(false),
  );
});

describe("toLiteLlmModel", () => {
  it("prefixes openai/ once", () => {
    expect(toLiteLlmModel("gpt-4.1")).toBe("openai/gpt-4.1");
    expect(toLiteLlmModel("openai/gpt-4.1")).toBe("openai/gpt-4.1");
  });
});

describe("resolveModelAccess", () => {
  it("returns anthropic-compatible when a base URL and key are given, without a proxy", () => {
    expect(resolveModelAccess({ models: ["free-coder"], baseUrl: "http://localhost:4000", anthropicApiKey: "k" })).toEqual({
      ok: true,
      value: { kind: "anthropic-compatible", baseUrl: "http://localhost:4000", apiKey: "k" },
    });
  });

  it("refuses a base URL without a key, naming the variable", () => {
    const result = resolveModelAccess({ models: ["m"], baseUrl: "http://localhost:4000", anthropicApiKey: "  " });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("BASE_URL_WITHOUT_KEY");
      expect(result.error.message).toContain("WFBENCH_ANTHROPIC_API_KEY");
    }
  });

  it("refuses mixing OpenAI and other ids", () => {
    const result = resolveModelAccess({ models: ["gpt-4.1", "claude-sonnet-4-5"], openAiApiKey: "o", anthropicApiKey: "a" });
    expect(result.ok ? null : result.error.code).toBe("MIXED_MODELS");
    expect(result.ok ? "" : result.error.message).toMatch(/do not mix/);
  });

  it("refuses OpenAI ids without a key, naming both variable spellings", () => {
    const result = resolveModelAccess({ models: ["o3"] });
    expect(result.ok ? null : result.error.variable).toBe("WFBENCH_OPENAI_API_KEY");
    expect(result.ok ? "" : result.error.message).toContain("GITNEXUS_BENCH_OPENAI_API_KEY");
  });

  it("routes OpenAI ids to LiteLLM with unique models", () => {
    expect(resolveModelAccess({ models: ["gpt-4.1", "gpt-4.1", "o3"], openAiApiKey: "o" })).toEqual({
      ok: true,
      value: { kind: "litellm", models: ["gpt-4.1", "o3"], openAiApiKey: "o" },
    });
  });

  it("routes other ids to Anthropic and requires its key", () => {
    expect(resolveModelAccess({ models: ["claude-sonnet-4-5"], anthropicApiKey: "a" })).toEqual({
      ok: true,
      value: { kind: "anthropic", apiKey: "a" },
    });
    expect(resolveModelAccess({ models: ["claude-sonnet-4-5"] })).toMatchObject({ ok: false, error: { code: "ANTHROPIC_KEY_MISSING" } });
    expect(resolveModelAccess({ models: [" "] })).toMatchObject({ ok: false, error: { code: "NO_MODELS" } });
  });
});
