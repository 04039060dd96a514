import { describe, expect, it } from "vitest";
import { isReviewTask } from "./is-review-task.js";

describe("isReviewTask", () => {
  it("is true only when the oracle stages review-labels.json", () => {
    expect(isReviewTask({ oracle: { command: "true", files: [{ source: "a.labels.json", target: "review-labels.json" }] } })).toBe(true);
    expect(isReviewTask({ oracle: { command: "true", files: [{ source: "x.oracle.test.mjs", target: "x.oracle.test.mjs" }] } })).toBe(false);
    expect(isReviewTask({ oracle: { command: "true", files: [{ source: "a.labels.json", target: "sub/review-labels.json" }] } })).toBe(false);
  });
});
