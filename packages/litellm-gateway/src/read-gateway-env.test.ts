import { describe, expect, it } from "vitest";
import { DEFAULT_READY_TIMEOUT_S, readGatewayEnv } from "./read-gateway-env.js";

describe("readGatewayEnv", () => {
  it("returns defaults for an empty env", () => {
    expect(readGatewayEnv({})).toEqual({
      ok: true,
      value: {
        anthropicApiKey: undefined,
        anthropicKeyIsAuthToken: false,
        openAiApiKey: undefined,
        readyTimeoutMs: DEFAULT_READY_TIMEOUT_S * 1000,
        readyTimeoutVariable: "WFBENCH_GATEWAY_READY_TIMEOUT_S",
        liteLlmExecutable: undefined,
      },
    });
    expect(DEFAULT_READY_TIMEOUT_S).toBeGreaterThanOrEqual(60);
  });

  it("accepts the GITNEXUS_BENCH_* aliases and the legacy auth token, WFBENCH_* first", () => {
    const legacy = readGatewayEnv({
      GITNEXUS_BENCH_AUTH_TOKEN: "legacy",
      GITNEXUS_BENCH_OPENAI_API_KEY: "oa",
      OPENAI_API_KEY: "plain",
      GITNEXUS_BENCH_GATEWAY_READY_TIMEOUT_S: "2.5",
    });
    expect(legacy).toMatchObject({
      ok: true,
      value: { anthropicApiKey: "legacy", anthropicKeyIsAuthToken: true, openAiApiKey: "oa", readyTimeoutMs: 2500, readyTimeoutVariable: "GITNEXUS_BENCH_GATEWAY_READY_TIMEOUT_S" },
    });
    const both = readGatewayEnv({ WFBENCH_ANTHROPIC_API_KEY: "new", GITNEXUS_BENCH_ANTHROPIC_API_KEY: "old", OPENAI_API_KEY: "plain" });
    expect(both).toMatchObject({ ok: true, value: { anthropicApiKey: "new", anthropicKeyIsAuthToken: false, openAiApiKey: "plain" } });
  });

  it("treats blank values as unset", () => {
    expect(readGatewayEnv({ WFBENCH_ANTHROPIC_API_KEY: " ", GITNEXUS_BENCH_ANTHROPIC_API_KEY: "x" })).toMatchObject({
      ok: true,
      value: { anthropicApiKey: "x" },
    });
  });

  it.each(["0", "-1", "abc", "Infinity", "NaN"])("refuses ready timeout %s, naming the variable", (value) => {
    const result = readGatewayEnv({ WFBENCH_GATEWAY_READY_TIMEOUT_S: value });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.variable).toBe("WFBENCH_GATEWAY_READY_TIMEOUT_S");
      expect(result.error.message).toContain("WFBENCH_GATEWAY_READY_TIMEOUT_S");
    }
  });
});
