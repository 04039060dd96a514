import { describe, expect, it } from "vitest";
import { PromotionError, isPromotionError } from "./errors.js";

describe("PromotionError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new PromotionError("PROMOTION_TEST", "what happened", { cause });
    expect(error.code).toBe("PROMOTION_TEST");
    expect(error.name).toBe("PromotionError");
    expect(error.cause).toBe(cause);
    expect(isPromotionError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isPromotionError(foreign)).toBe(false);
    expect(isPromotionError("PROMOTION_TEST")).toBe(false);
  });
});
