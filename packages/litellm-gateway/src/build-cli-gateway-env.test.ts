import { describe, expect, it } from "vitest";
import { buildCliGatewayEnv } from "./build-cli-gateway-env.js";

describe("buildCliGatewayEnv", () => {
  it("pins every model tier to the session model and uses the socket", () => {
    const env = buildCliGatewayEnv({ model: "gpt-4.1", token: "sk-wfb-1", socketPath: "/run/gw.sock" });
    expect(env).toEqual({
      ANTHROPIC_API_KEY: "sk-wfb-1",
      ANTHROPIC_BASE_URL: "http://localhost",
      ANTHROPIC_UNIX_SOCKET: "/run/gw.sock",
      ANTHROPIC_MODEL: "gpt-4.1",
      ANTHROPIC_DEFAULT_OPUS_MODEL: "gpt-4.1",
      ANTHROPIC_DEFAULT_SONNET_MODEL: "gpt-4.1",
      ANTHROPIC_DEFAULT_HAIKU_MODEL: "gpt-4.1",
      ANTHROPIC_DEFAULT_FABLE_MODEL: "gpt-4.1",
      ANTHROPIC_SMALL_FAST_MODEL: "gpt-4.1",
      CLAUDE_CODE_SUBAGENT_MODEL: "gpt-4.1",
      API_TIMEOUT_MS: "1800000",
    });
    expect(env).not.toHaveProperty("ANTHROPIC_AUTH_TOKEN");
  });

  it("uses the loopback base URL without a socket variable", () => {
    const env = buildCliGatewayEnv({ model: "m", token: "t", baseUrl: "http://127.0.0.1:9" });
    expect(env["ANTHROPIC_BASE_URL"]).toBe("http://127.0.0.1:9");
    expect(env).not.toHaveProperty("ANTHROPIC_UNIX_SOCKET");
  });

  it("throws on a blank token, blank model or no transport", () => {
    expect(() => buildCliGatewayEnv({ model: "m", token: " ", socketPath: "/s" })).toThrow(/token/);
    expect(() => buildCliGatewayEnv({ model: "", token: "t", socketPath: "/s" })).toThrow(/model/);
    expect(() => buildCliGatewayEnv({ model: "m", token: "t" })).toThrow(/socketPath or baseUrl/);
  });
});
