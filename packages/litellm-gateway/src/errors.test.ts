import { describe, expect, it } from "vitest";
import { GatewayError, isGatewayError } from "./errors.js";

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
});
