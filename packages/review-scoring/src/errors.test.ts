import { describe, expect, it } from "vitest";
import { ReviewError, isReviewError } from "./errors.js";

describe("ReviewError", () => {
  it("carries its stable code, name and cause", () => {
    const cause = new Error("root cause");
    const error = new ReviewError("REVIEW_TEST", "what happened", { cause });
    expect(error.code).toBe("REVIEW_TEST");
    expect(error.name).toBe("ReviewError");
    expect(error.cause).toBe(cause);
    expect(isReviewError(error)).toBe(true);
  });

  it("is not claimed by the guard for foreign errors", () => {
    const foreign = Object.assign(new Error("x"), { code: "OTHER_TEST" });
    expect(isReviewError(foreign)).toBe(false);
    expect(isReviewError("REVIEW_TEST")).toBe(false);
  });
});
