import { describe, expect, it } from "vitest";
import { makeRow } from "../test/support/rows.js";
import { emptyUsage } from "./extract-usage.js";
import { summarizeCellUsage } from "./summarize-cell-usage.js";

describe("summarizeCellUsage", () => {
  it("sums only the cell's rows, counting failures, retries and broken streams", () => {
    const rows = [
      makeRow({ gateway_request_id: "1" }),
      makeRow({ gateway_request_id: "2", cell_id: "cell-b", usage: { ...emptyUsage(), input_tokens: 999, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }),
      makeRow({ gateway_request_id: "3", outcome: "http_error", http_status: 529, usage: emptyUsage(), cost_usd: null, sse_conformant: null }),
      makeRow({ gateway_request_id: "4", attempt: 2, retry_of: "3", cost_usd: 0.002, sse_conformant: false }),
    ];
    const summary = summarizeCellUsage(rows, "cell-a");
    expect(summary).toMatchObject({
      cellId: "cell-a",
      requests: 3,
      failedRequests: 1,
      upstreamFailedRequests: 1,
      abortedRequests: 0,
      retriedRequests: 1,
      nonConformantStreams: 1,
      inputTokens: 20,
      outputTokens: 10,
      cacheReadInputTokens: 4,
      cacheCreationInputTokens: 2,
      wireTokens: 36,
      complete: true,
    });
    expect(summary.costUsd).toBeCloseTo(0.003, 12);
  });

  it("counts as upstream failures only what the model side caused, not a request the client abandoned", () => {
    const rows = [makeRow({ outcome: "aborted" }), makeRow({ outcome: "over_capacity" }), makeRow({ outcome: "stream_error" }), makeRow({ outcome: "upstream_unreachable" }), makeRow()];
    expect(summarizeCellUsage(rows, "cell-a")).toMatchObject({ requests: 5, failedRequests: 4, upstreamFailedRequests: 2, abortedRequests: 1 });
  });

  it("returns a null cost when a row with usage was not priced, and incomplete when an ok row had no usage", () => {
    expect(summarizeCellUsage([makeRow(), makeRow({ cost_usd: null, priced_model: null })], "cell-a").costUsd).toBeNull();
    const noUsage = summarizeCellUsage([makeRow({ usage: emptyUsage(), cost_usd: null })], "cell-a");
    expect(noUsage.complete).toBe(false);
    expect(noUsage.wireTokens).toBe(0);
    expect(noUsage.costUsd).toBeNull();
    // A failed request that never reached usage (a 529, a refusal) adds nothing and leaves the cost known.
    const failedOnly = summarizeCellUsage([makeRow(), makeRow({ outcome: "http_error", http_status: 529, usage: emptyUsage(), cost_usd: null })], "cell-a");
    expect(failedOnly.costUsd).toBeCloseTo(0.001, 12);
    const partial = summarizeCellUsage([makeRow({ usage: { ...makeRow().usage, cache_read_input_tokens: null } })], "cell-a");
    expect(partial.complete).toBe(false);
  });

  it("returns zero requests and a zero cost for a cell with no traffic", () => {
    expect(summarizeCellUsage([makeRow()], "other")).toMatchObject({ requests: 0, wireTokens: 0, costUsd: 0, complete: true });
  });
});
