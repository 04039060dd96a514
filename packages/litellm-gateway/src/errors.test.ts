import { describe, expect, it } from "vitest";
import {
  GatewayConfigError,
  GatewayError,
  GatewayListenError,
  GatewayUsageLogCorruptError,
  GatewayUsageLogError,
  LiteLlmExitedError,
  LiteLlmReadyTimeoutError,
  LiteLlmSpawnError,
  isGatewayError,
} from "./errors.js";

describe("GatewayError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new GatewayError("GATEWAY_TEST", "what happened", { cause });
    expect(error.code).toBe("GATEWAY_TEST");
    expect(error.name).toBe("GatewayError");
    expect(error.cause).toBe(cause);
    expect(isGatewayError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isGatewayError(foreign)).toBe(false);
    expect(isGatewayError("GATEWAY_TEST")).toBe(false);
  });

  it.each<[GatewayError, string, string]>([
    [new GatewayConfigError("m"), "GATEWAY_CONFIG_INVALID", "GatewayConfigError"],
    [new GatewayListenError("m"), "GATEWAY_LISTEN_FAILED", "GatewayListenError"],
    [new GatewayUsageLogError("m"), "GATEWAY_USAGE_LOG_WRITE_FAILED", "GatewayUsageLogError"],
    [new GatewayUsageLogCorruptError("m"), "GATEWAY_USAGE_LOG_CORRUPT", "GatewayUsageLogCorruptError"],
    [new LiteLlmSpawnError("m"), "GATEWAY_LITELLM_SPAWN_FAILED", "LiteLlmSpawnError"],
    [new LiteLlmExitedError("m", 3), "GATEWAY_LITELLM_EXITED", "LiteLlmExitedError"],
    [new LiteLlmReadyTimeoutError("m", 1000), "GATEWAY_LITELLM_READY_TIMEOUT", "LiteLlmReadyTimeoutError"],
  ])("subclass %# has code %s and name %s", (error, code, name) => {
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(GatewayError);
    expect(isGatewayError(error)).toBe(true);
  });
});
