import type { UsageRow } from "../../src/schema.js";

/** A valid usage row for tests; override what the test is about. */
export function makeRow(overrides: Partial<UsageRow> = {}): UsageRow {
  return {
    schema_version: 1,
    gateway_request_id: "wfgw_1",
    cell_id: "cell-a",
    received_at: "2026-01-01T00:00:00.000Z",
    completed_at: "2026-01-01T00:00:01.000Z",
    duration_ms: 1000,
    path: "/v1/messages?beta=true",
    upstream: "scripted",
    stream: true,
    model_requested: "claude-sonnet-4-5",
    model_served: "claude-sonnet-4-5",
    http_status: 200,
    upstream_request_id: "req_1",
    message_id: "msg_1",
    outcome: "ok",
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 1 },
    cost_usd: 0.001,
    priced_model: "anthropic/claude-sonnet-4-5",
    price_table: "@pydantic/genai-prices@0.1.8+sha256:000000000000",
    attempt: 1,
    retry_of: null,
    request_sha256: "a".repeat(64),
    sse_conformant: true,
    sse_violations: [],
    response_bytes: 100,
    error: null,
    ...overrides,
  };
}
