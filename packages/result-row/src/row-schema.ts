import { z } from "zod";
import { KNOWN_ARMS } from "./arms.js";
import { ERROR_KINDS } from "./error-kinds.js";
import { ReviewRowFieldsSchema } from "./review-fields.js";

/** The row_schema version this package writes and reads in full; rows without the field predate it. */
export const ROW_SCHEMA_VERSION = 1;

/** Where a transcript's bytes came from (reference Appendix A `PARENT_EVENT_STREAM_SOURCE`). */
export const TRANSCRIPT_SOURCE = "parent-captured-stream-json";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex characters");
const gitSha = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "must be a 40- or 64-character lower-case hex commit id");
const count = z.int().min(0);
// §4.2: an unmeasured value is null, never a made-up number; a negative or non-finite one is malformed.
const measuredCount = count.nullable();
const measuredAmount = z.number().finite().min(0).nullable();

/** The row's record of a persisted transcript (reference §4.2 `transcript_artifacts[*]`). */
export const TranscriptArtifactRecordSchema = z.strictObject({
  /** Relative to the sweep's output directory. */
  path: z.string().min(1),
  sha256: hex64,
  bytes: count,
  source: z.literal(TRANSCRIPT_SOURCE),
});

/** The row's record of a persisted transcript. */
export type TranscriptArtifactRecord = z.infer<typeof TranscriptArtifactRecordSchema>;

/**
 * A session-error detail (reference §4.2): the original's seven keys, plus the result-event facts this project adds
 * (`is_error`, `terminal_reason`, `api_error_status`, `errors`), optional so the original's rows still parse.
 */
export const SessionErrorDetailSchema = z.strictObject({
  subtype: z.string().nullable(),
  returncode: z.int().nullable(),
  process_state: z.string(),
  stderr_tail: z.string().max(2000).nullable(),
  stdout_tail: z.string().max(2000).nullable(),
  process_detail: z.string().nullable(),
  event_stream_error: z.string().nullable(),
  is_error: z.boolean().nullable().optional(),
  terminal_reason: z.string().nullable().optional(),
  api_error_status: z.int().nullable().optional(),
  errors: z.array(z.string()).readonly().optional(),
});

/** A session-error detail. */
export type SessionErrorDetail = z.infer<typeof SessionErrorDetailSchema>;

/** `error_detail`: a session-error dict, a harness message, or null when nothing failed. */
export const ErrorDetailSchema = z.union([z.string(), SessionErrorDetailSchema]).nullable();

/** `error_detail`. */
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** Relative disagreement between the CLI's cost and the gateway's priced wire cost above which a row is flagged (5%). */
export const COST_DISAGREEMENT_THRESHOLD = 0.05;

/** The fields every results row carries, in reference §4.2 order, plus this project's `wire_*`, `upstream`, `patch_artifact`. */
const requiredFields = {
  // Usage and timing, from the CLI's result events (main loop only).
  input_tokens: measuredCount,
  cache_creation_input_tokens: measuredCount,
  cache_read_input_tokens: measuredCount,
  output_tokens: measuredCount,
  cost_usd: measuredAmount,
  duration_s: measuredAmount,
  num_turns: measuredCount,
  ok: z.boolean(),
  session_ids: z.array(z.string().nullable()),
  error_kind: z.enum(ERROR_KINDS).nullable(),
  error_detail: ErrorDetailSchema,
  skill_invoked: z.boolean().nullable(),
  transcript_missing: z.boolean(),
  transcript_artifacts: z.array(TranscriptArtifactRecordSchema),
  evidence_diagnostics: z.array(z.string()),
  /** null when any session's stream did not parse (or no session ran): not measured. */
  gitnexus_tool_uses: measuredCount,
  tool_use_counts: z.record(z.string(), count).nullable(),
  // Every request the cell's token made, from the metering gateway (subagents, retries and side calls included).
  wire_requests: measuredCount,
  wire_failed_requests: measuredCount,
  wire_input_tokens: measuredCount,
  wire_output_tokens: measuredCount,
  wire_cache_read_input_tokens: measuredCount,
  wire_cache_creation_input_tokens: measuredCount,
  /** Priced from the pinned table; null when any request was unpriced. */
  wire_cost_usd: measuredAmount,
  wire_usage_complete: z.boolean().nullable(),
  wire_price_tables: z.array(z.string()),
  /** The model upstream behind the gateway: `scripted`, `anthropic`, … */
  upstream: z.string().min(1),
  // Arm outcome.
  /** The requested arm (`candidate_review`, not the `review` logic it runs). */
  arm: z.enum(KNOWN_ARMS),
  plan_produced: z.boolean(),
  authored_tests_passed: z.boolean(),
  authored_test_output: z.string(),
  verify_output: z.string(),
  oracle_passed: z.boolean(),
  /** Fixed strings only: oracle stdout/stderr is never stored. */
  oracle_output: z.string(),
  resolved: z.boolean(),
  oracle_digest: hex64.nullable(),
  oracle_command_digest: hex64.nullable(),
  oracle_manifest_digest: hex64.nullable(),
  // Cell identity and provenance.
  diff_files: measuredCount,
  diff_insertions: measuredCount,
  diff_deletions: measuredCount,
  /** File name of the cell's patch in the output directory; null when none was written. */
  patch_artifact: z.string().min(1).nullable(),
  // The original records an unnamed model (which can never promote) as null.
  model: z.string().nullable(),
  benchmark_model: z.string().nullable(),
  proposer_model: z.string().nullable(),
  effort: z.string().nullable(),
  task_ref: z.string().min(1),
  task_base_sha: gitSha,
  sanitized_task_sha: gitSha.nullable(),
  variant_head_sha: gitSha.nullable(),
  task_prompt_digest: hex64,
  skill_digest: hex64.nullable(),
  candidate_overlay_digest: hex64.nullable(),
  runtime_digest: z.string().nullable(),
  recorded_at: z.iso.datetime({ offset: true }),
  task: z.string().min(1),
  class: z.string(),
  /** 0-based repeat. */
  run: count,
  sandbox_backend: z.enum(["bwrap", "host-unsafe"]),
  task_asset_snapshot_digest: z.string().nullable(),
  task_asset_manifest_digest: z.string().nullable(),
  sandbox_dependency_content_digest: z.string().nullable(),
  sandbox_dependency_manifest_digest: z.string().nullable(),
  sanitized_graph_snapshot_digest: z.string().nullable(),
  sanitized_graph_manifest_digest: z.string().nullable(),
};

/** Fields only some rows carry: review arms, reused rows, CE arms, and per-stage timings (a later version fills them). */
const optionalFields = {
  ...ReviewRowFieldsSchema.partial().shape,
  /** A row copied from an earlier sweep by comparator reuse (reference §5.6). */
  reused: z.boolean().optional(),
  /** The first measurement time of a reused row. */
  reused_from_recorded_at: z.iso.datetime({ offset: true }).optional(),
  ce_plugin_version: z.string().nullable().optional(),
  ce_plugin_manifest_digest: z.string().nullable().optional(),
  /** Wall time of each cell stage in milliseconds. */
  timings_ms: z.record(z.string(), z.number().finite().min(0)).optional(),
  /**
   * Served requests of the cell's token that its CLI streams do not account for (no message id they show, no tokens
   * their modelUsage reports): spend outside the CLI, which makes the row evidence-unverified. The pipeline always
   * writes it; null when the rows were not matched (the cell ended before its sessions were folded).
   */
  wire_unaccounted_requests: measuredCount.optional(),
  /** Priced cost of those requests (already inside `wire_cost_usd`); null when unmatched or one of them was unpriced. */
  wire_unaccounted_cost_usd: measuredAmount.optional(),
  /**
   * |cost_usd − wire_cost_usd| / wire_cost_usd: how far the CLI's own figure is from the cost of record. null when
   * either is unknown, or when the record is 0 and the CLI's figure is not (no finite ratio; flagged). The pipeline
   * always writes it.
   */
  cost_disagreement_ratio: measuredAmount.optional(),
  /** The CLI's cost and the cost of record disagree by more than COST_DISAGREEMENT_THRESHOLD; false when either is unknown. */
  cost_disagreement_flagged: z.boolean().optional(),
  /** sha256 of the cell's stored patch bytes (`patch_artifact`); null when no patch was written. */
  diff_digest: hex64.nullable().optional(),
  /**
   * Contamination alarm: the earlier arms of the same task and run whose non-empty patch has this row's `diff_digest`
   * (a possible shared-state leak between arms), in canonical order; empty when none.
   */
  contamination_arms: z.array(z.string().min(1)).optional(),
  /**
   * Tool uses per declared MCP server (`mcp__<server>__*` tool_use blocks in the parent-captured streams), every
   * declared server present (0 when unused); null when the suite declares none or a session's stream was unmeasured.
   */
  mcp_tool_uses: z.record(z.string(), count).nullable().optional(),
};

/**
 * One results.jsonl row of the current version (reference §4.2 plus this project's fields), exactly as the writer
 * builds it: every field present, unknown fields refused, and a resolved row carrying neither a failure nor an error
 * kind (resolved = ok AND verify AND oracle, §4.2).
 */
export const ResultRowSchema = z
  .strictObject({ row_schema: z.literal(ROW_SCHEMA_VERSION), ...requiredFields, ...optionalFields })
  .superRefine((row, ctx) => {
    if (row.resolved && (!row.ok || row.error_kind !== null)) ctx.addIssue({ code: "custom", path: ["resolved"], message: "a resolved row must be ok and carry no error_kind" });
  });

/** One results.jsonl row of the current version. */
export type ResultRow = z.infer<typeof ResultRowSchema>;

/** What a writer supplies to buildResultRow: a row without its version stamp. */
export type ResultRowFields = Omit<z.input<typeof ResultRowSchema>, "row_schema">;

/**
 * A row as readers see it, whatever its version: a current row in full, or a row written before `row_schema` existed
 * (earlier wfbench sweeps, the original harness) with whichever fields it carried. Identity and outcome (`task`, `arm`,
 * `class`, `resolved`) are always present; every field that is present has its current type.
 */
export const ParsedRowSchema = z.object({ row_schema: z.literal(ROW_SCHEMA_VERSION), ...requiredFields, ...optionalFields }).partial().required({ task: true, arm: true, class: true, resolved: true });

/** A row as readers see it. */
export type ParsedRow = z.infer<typeof ParsedRowSchema>;
