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

  // Usage of makeRow: 10 + 5 + 2 + 1 = 18 tokens.
  const rows = [
    makeRow({ gateway_request_id: "1", message_id: "msg_cli_1", cost_usd: 0.001 }),
    makeRow({ gateway_request_id: "2", message_id: "msg_side", cost_usd: 0.45 }),
    // A side request cut off after its message began is still spend.
    makeRow({ gateway_request_id: "3", message_id: "msg_cut", outcome: "aborted", cost_usd: 0.01 }),
    // An upstream failure mid-stream is the CLI's retry, never the agent's: not counted even without its id in the stream.
    makeRow({ gateway_request_id: "4", message_id: "msg_broken", outcome: "stream_error", cost_usd: 0.002 }),
    makeRow({ gateway_request_id: "5", message_id: null, outcome: "http_error", http_status: 529, usage: emptyUsage(), cost_usd: null }),
    makeRow({ gateway_request_id: "6", message_id: null, outcome: "unauthorized", usage: emptyUsage(), cost_usd: null }),
    // Answered, but with no id to match: never assumed to be the CLI's.
    makeRow({ gateway_request_id: "7", message_id: null, cost_usd: 0.003 }),
    makeRow({ gateway_request_id: "8", message_id: "msg_other_cell", cell_id: "cell-b" }),
    // A stream the upstream broke (no content_block_stop): the CLI discards it and asks again.
    makeRow({ gateway_request_id: "9", message_id: "msg_nonconformant", sse_conformant: false }),
  ];

  it("counts the served rows the cell's streams neither show by id nor cover with reported tokens", () => {
    const summary = summarizeCellUsage(rows, "cell-a", { messageIds: ["msg_cli_1", "msg_unused"], reportedTokens: 18 });
    expect(summary.unaccountedRequests).toBe(3);
    expect(summary.unaccountedCostUsd).toBeCloseTo(0.463, 12);
    expect(summary.unaccountedMessageIds).toEqual(["msg_side", "msg_cut"]);
    // Every served row shown by id: 0, not null.
    expect(summarizeCellUsage(rows.slice(0, 1), "cell-a", { messageIds: ["msg_cli_1"], reportedTokens: 18 })).toMatchObject({ unaccountedRequests: 0, unaccountedCostUsd: 0, unaccountedMessageIds: [] });
  });

  it("covers a subagent's request (absent from the stream) with the tokens modelUsage reports beyond the matched rows", () => {
    const sub = [makeRow({ gateway_request_id: "1", message_id: "msg_main" }), makeRow({ gateway_request_id: "2", message_id: "msg_sub" })];
    expect(summarizeCellUsage(sub, "cell-a", { messageIds: ["msg_main"], reportedTokens: 36 }).unaccountedRequests).toBe(0);
    // One token short of the subagent's 18: the request is not covered. Reported nothing (null): nothing is covered.
    expect(summarizeCellUsage(sub, "cell-a", { messageIds: ["msg_main"], reportedTokens: 35 }).unaccountedMessageIds).toEqual(["msg_sub"]);
    expect(summarizeCellUsage(sub, "cell-a", { messageIds: ["msg_main"], reportedTokens: null }).unaccountedRequests).toBe(1);
    // A side request next to the subagent makes the sum exceed what was reported: exactly one row is flagged.
    const withSide = [...sub, makeRow({ gateway_request_id: "3", message_id: "msg_side" })];
    expect(summarizeCellUsage(withSide, "cell-a", { messageIds: ["msg_main"], reportedTokens: 36 }).unaccountedRequests).toBe(1);
    // A row with a partly unknown usage is never shown to fit.
    const partial = [sub[0] as (typeof sub)[number], makeRow({ gateway_request_id: "2", message_id: "msg_sub", usage: { ...emptyUsage(), input_tokens: 3 } })];
    expect(summarizeCellUsage(partial, "cell-a", { messageIds: ["msg_main"], reportedTokens: 1000 }).unaccountedRequests).toBe(1);
  });

  it("leaves the unaccounted figures null without stream accounting, and the cost null when a flagged row was unpriced", () => {
    expect(summarizeCellUsage([makeRow({ message_id: "msg_x" })], "cell-a")).toMatchObject({ unaccountedRequests: null, unaccountedCostUsd: null });
    const unpriced = summarizeCellUsage([makeRow({ message_id: "msg_x", cost_usd: null, priced_model: null })], "cell-a", { messageIds: [], reportedTokens: 0 });
    expect(unpriced.unaccountedRequests).toBe(1);
    expect(unpriced.unaccountedCostUsd).toBeNull();
  });

  it("returns zero requests and a zero cost for a cell with no traffic", () => {
    expect(summarizeCellUsage([makeRow()], "other")).toMatchObject({ requests: 0, wireTokens: 0, costUsd: 0, complete: true });
  });
});
