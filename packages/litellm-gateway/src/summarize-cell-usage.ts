import type { UsageRow } from "./schema.js";

/** Wire totals of one cell: every request its token made, subagents, side calls and retries included. */
export interface CellUsageSummary {
  readonly cellId: string;
  readonly requests: number;
  /** Requests that did not end `ok` (HTTP errors, broken streams, aborts, unreachable upstream). */
  readonly failedRequests: number;
  /**
   * Failed requests the model side caused (HTTP errors, broken streams, an unreachable upstream); not a request the
   * client abandoned (`aborted`) or the gateway refused for the cell's own conduct. What an outage looks like.
   */
  readonly upstreamFailedRequests: number;
  /** Requests the client abandoned mid-flight (`aborted`): a request was in flight when its caller went away. */
  readonly abortedRequests: number;
  /** Requests recognised as a repeat of the cell's previous request body. */
  readonly retriedRequests: number;
  readonly nonConformantStreams: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheCreationInputTokens: number;
  /** input + output + cache read + cache creation. */
  readonly wireTokens: number;
  /** Sum of row costs; null when any row that reported usage could not be priced, or an ok row reported none. */
  readonly costUsd: number | null;
  /** False when some row lacked a usage field the sum needed (its tokens are then missing from the totals). */
  readonly complete: boolean;
  readonly priceTables: readonly string[];
}

const UPSTREAM_FAILURES: ReadonlySet<UsageRow["outcome"]> = new Set<UsageRow["outcome"]>(["http_error", "stream_error", "upstream_unreachable"]);

/**
 * Sums one cell's rows. A failed row with no usage at all (refused, unreachable, error before message_start) adds no
 * tokens; an ok row without usage, a row with partial usage, or usage that could not be priced makes the summary
 * incomplete / its cost null.
 */
export function summarizeCellUsage(rows: readonly UsageRow[], cellId: string): CellUsageSummary {
  let requests = 0;
  let failed = 0;
  let upstreamFailed = 0;
  let aborted = 0;
  let retried = 0;
  let nonConformant = 0;
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheCreation = 0;
  let cost = 0;
  let costKnown = true;
  let complete = true;
  const tables = new Set<string>();
  for (const row of rows) {
    if (row.cell_id !== cellId) continue;
    requests += 1;
    if (row.outcome !== "ok") failed += 1;
    if (UPSTREAM_FAILURES.has(row.outcome)) upstreamFailed += 1;
    if (row.outcome === "aborted") aborted += 1;
    if (row.retry_of !== null) retried += 1;
    if (row.sse_conformant === false) nonConformant += 1;
    const u = row.usage;
    const fields = [u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens];
    const anyKnown = fields.some((f) => f !== null);
    if (!anyKnown) {
      // An answered request whose usage never arrived was still spent: its cost is unknown, not 0.
      if (row.outcome === "ok") {
        complete = false;
        costKnown = false;
      }
      continue;
    }
    if (fields.some((f) => f === null)) complete = false;
    input += u.input_tokens ?? 0;
    output += u.output_tokens ?? 0;
    cacheRead += u.cache_read_input_tokens ?? 0;
    cacheCreation += u.cache_creation_input_tokens ?? 0;
    tables.add(row.price_table);
    if (row.cost_usd === null) costKnown = false;
    else cost += row.cost_usd;
  }
  return {
    cellId,
    requests,
    failedRequests: failed,
    upstreamFailedRequests: upstreamFailed,
    abortedRequests: aborted,
    retriedRequests: retried,
    nonConformantStreams: nonConformant,
    inputTokens: input,
    outputTokens: output,
    cacheReadInputTokens: cacheRead,
    cacheCreationInputTokens: cacheCreation,
    wireTokens: input + output + cacheRead + cacheCreation,
    costUsd: costKnown ? cost : null,
    complete,
    priceTables: [...tables].sort(),
  };
}
