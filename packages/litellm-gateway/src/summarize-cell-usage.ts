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
  /**
   * Served rows the cell's CLI streams do not account for (see {@link findUnaccountedRows}); null when no stream
   * accounting was handed in, so nothing was matched.
   */
  readonly unaccountedRequests: number | null;
  /** Summed cost of those rows: null when unmatched, or when one of them was served but could not be priced. */
  readonly unaccountedCostUsd: number | null;
  /** Their message ids (null-id rows left out), at most 16, for the row's diagnostic. */
  readonly unaccountedMessageIds: readonly string[];
}

/** What a cell's CLI streams account for: the assistant message ids they show and the tokens their `modelUsage` reports. */
export interface StreamAccounting {
  readonly messageIds: Iterable<string>;
  /**
   * Input + output + cache tokens of every `modelUsage` entry of the cell's result events (main loop and subagents:
   * measured on 2.1.332, a subagent's message never appears in the stream but its tokens do appear here); null when
   * some session reported none.
   */
  readonly reportedTokens: number | null;
}

// Outcomes where the upstream served (part of) a message the client received or hung up on. Upstream-side failures
// (http_error, stream_error, unreachable) and refusals are the CLI's retries or nobody's spend; they never count.
const SERVED_OUTCOMES = new Set<UsageRow["outcome"]>(["ok", "aborted"]);
const MAX_LISTED_IDS = 16;

/**
 * True when a wire row is spend some client received: the request ended `ok` or `aborted` with a conformant (or
 * non-streaming) response, and it began a message or reported usage. A stream the conformance checker refused is the
 * upstream's defect, which the CLI discards and retries. Pure.
 */
export function isServedRow(row: UsageRow): boolean {
  if (!SERVED_OUTCOMES.has(row.outcome) || row.sse_conformant === false) return false;
  if (row.message_id !== null || row.outcome === "ok") return true;
  return rowTokens(row) > 0;
}

function rowTokens(row: UsageRow): number {
  const u = row.usage;
  return (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}

const UPSTREAM_FAILURES: ReadonlySet<UsageRow["outcome"]> = new Set<UsageRow["outcome"]>(["http_error", "stream_error", "upstream_unreachable"]);

/**
 * The served rows of one cell that its CLI streams do not account for. A row whose message id a stream shows is
 * accounted. The others are covered, in log order, by the tokens the streams' `modelUsage` reports beyond the
 * id-matched rows (subagent traffic), while they fit; the rest are unaccounted. So any extra request with tokens makes
 * the sum exceed what the CLI reported and at least one row is flagged (which one is then a matter of order). Pure.
 */
export function findUnaccountedRows(rows: readonly UsageRow[], cellId: string, stream: StreamAccounting): UsageRow[] {
  const ids = new Set(stream.messageIds);
  const served = rows.filter((row) => row.cell_id === cellId && isServedRow(row));
  const matched = served.filter((row) => row.message_id !== null && ids.has(row.message_id));
  let residual = Math.max(0, (stream.reportedTokens ?? 0) - matched.reduce((sum, row) => sum + rowTokens(row), 0));
  const unaccounted: UsageRow[] = [];
  for (const row of served) {
    if (row.message_id !== null && ids.has(row.message_id)) continue;
    const tokens = rowTokens(row);
    // A row whose usage is partly unknown cannot be shown to fit: it is never covered.
    const known = Object.values(row.usage).every((field) => field !== null);
    if (known && tokens > 0 && tokens <= residual) residual -= tokens;
    else unaccounted.push(row);
  }
  return unaccounted;
}

/**
 * Sums one cell's rows; given what the cell's CLI streams account for, also counts the served rows they do not. A failed row with no usage at all (refused, unreachable, error before message_start) adds no
 * tokens; an ok row without usage, a row with partial usage, or usage that could not be priced makes the summary
 * incomplete / its cost null.
 */
export function summarizeCellUsage(rows: readonly UsageRow[], cellId: string, stream?: StreamAccounting): CellUsageSummary {
  const unaccounted = stream === undefined ? null : findUnaccountedRows(rows, cellId, stream);
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
    unaccountedRequests: unaccounted === null ? null : unaccounted.length,
    unaccountedCostUsd: unaccounted === null || unaccounted.some((row) => row.cost_usd === null) ? null : unaccounted.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0),
    unaccountedMessageIds: (unaccounted ?? []).flatMap((row) => (row.message_id === null ? [] : [row.message_id])).slice(0, MAX_LISTED_IDS),
  };
}
