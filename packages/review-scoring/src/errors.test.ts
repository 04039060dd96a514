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

describe("ReviewError subclasses", () => {
  it("carry stable codes and names", async () => {
    const { ReviewScoreInputError, ReviewInvariantError } = await import("./errors.js");
    const input = new ReviewScoreInputError("bad");
    expect([input.code, input.name, input instanceof ReviewError, isReviewError(input)]).toEqual([
      "REVIEW_SCORE_INPUT_INVALID", "ReviewScoreInputError", true, true,
    ]);
    const bug = new ReviewInvariantError("bug", { cause: input });
    expect([bug.code, bug.name, bug.cause]).toEqual(["REVIEW_INVARIANT_BROKEN", "ReviewInvariantError", input]);
  });
});
