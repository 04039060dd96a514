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

describe("OverlayTransactionError", () => {
  it("is a PromotionError carrying the transaction state and recovery path", async () => {
    const { OverlayTransactionError } = await import("./errors.js");
    const error = new OverlayTransactionError("PROMOTION_APPLY_ROLLBACK_INCOMPLETE", "x", {
      transactionState: "rollback-incomplete",
      recoveryPath: "/r.json",
      rollbackFailures: ["a"],
    });
    expect(isPromotionError(error)).toBe(true);
    expect(error).toBeInstanceOf(PromotionError);
    expect(error).toMatchObject({ name: "OverlayTransactionError", transactionState: "rollback-incomplete", recoveryPath: "/r.json" });
  });
});
