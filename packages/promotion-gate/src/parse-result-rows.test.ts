import { describe, expect, it } from "vitest";
import { parseResultRows } from "./parse-result-rows.js";

const good = {
  task: "t1",
  arm: "workflow",
  class: "trivial",
  error_kind: null,
  resolved: true,
  cost_usd: 0.5,
  output_tokens: 120,
  session_ids: ["s-1"],
};

describe("parseResultRows", () => {
  it("accepts rows and strips the fields the gate does not read", () => {
    const result = parseResultRows([good, { ...good, error_kind: "skill-not-invoked", reused: true }]);
    expect(result.ok).toBe(true);
    expect(result.ok && result.value[0]).toEqual({ task: "t1", arm: "workflow", class: "trivial", error_kind: null, resolved: true, cost_usd: 0.5, output_tokens: 120 });
    expect(result.ok && result.value[1]?.reused).toBe(true);
  });

  it.each([
    ["an unknown error_kind", { error_kind: "timeout" }, "error_kind"],
    ["a missing resolved flag", { resolved: undefined }, "resolved"],
    ["a string resolved flag", { resolved: "true" }, "resolved"],
    ["a blank task", { task: "" }, "task"],
    // §4.2: a negative cost is "unmeasured" and must already be null; a negative count is no measurement at all.
    ["a negative cost", { cost_usd: -0.01 }, "cost_usd"],
    ["a negative token count", { output_tokens: -1 }, "output_tokens"],
    ["a negative duration", { duration_s: -3 }, "duration_s"],
    ["a negative review false-positive count", { review_false_positives: -1 }, "review_false_positives"],
    ["an infinite metric", { input_tokens: Number.POSITIVE_INFINITY }, "input_tokens"],
  ] as const)("refuses %s, naming the row and the field", (_name, override, field) => {
    const result = parseResultRows([good, { ...good, ...override }]);
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.error).toMatchObject({ index: 1, field });
  });

  it("refuses a row that is not an object", () => {
    expect(parseResultRows([null])).toMatchObject({ ok: false, error: { index: 0 } });
  });
});
