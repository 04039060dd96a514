import type { TranscriptArtifactRecord } from "@wfbench/stream-json-evidence";

/**
 * One results.jsonl row (reference §4.2 names) plus the gateway's wire view (`wire_*`) and the upstream label. A value
 * this pipeline did not measure is null, never a made-up number.
 */
export interface ResultRow {
  // Usage and timing, from the CLI's result events (main loop only).
  input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  duration_s: number | null;
  num_turns: number | null;
  ok: boolean;
  session_ids: (string | null)[];
  error_kind: string | null;
  error_detail: unknown;
  skill_invoked: boolean | null;
  transcript_missing: boolean;
  transcript_artifacts: TranscriptArtifactRecord[];
  evidence_diagnostics: string[];
  /** null when any session's stream did not parse (or no session ran): not measured. */
  gitnexus_tool_uses: number | null;
  tool_use_counts: Record<string, number> | null;
  // Every request the cell's token made, from the gateway (subagents, retries and side calls included).
  wire_requests: number | null;
  wire_failed_requests: number | null;
  wire_input_tokens: number | null;
  wire_output_tokens: number | null;
  wire_cache_read_input_tokens: number | null;
  wire_cache_creation_input_tokens: number | null;
  wire_cost_usd: number | null;
  wire_usage_complete: boolean | null;
  wire_price_tables: string[];
  upstream: string;
  // Arm outcome.
  arm: string;
  plan_produced: boolean;
  authored_tests_passed: boolean;
  authored_test_output: string;
  verify_output: string;
  oracle_passed: boolean;
  oracle_output: string;
  resolved: boolean;
  oracle_digest: string | null;
  oracle_command_digest: string | null;
  oracle_manifest_digest: string | null;
  // Cell identity and provenance.
  diff_files: number | null;
  diff_insertions: number | null;
  diff_deletions: number | null;
  patch_artifact: string | null;
  model: string;
  benchmark_model: string;
  proposer_model: string | null;
  effort: string;
  task_ref: string;
  task_base_sha: string;
  sanitized_task_sha: string | null;
  variant_head_sha: string | null;
  task_prompt_digest: string;
  skill_digest: string | null;
  candidate_overlay_digest: string | null;
  runtime_digest: string | null;
  recorded_at: string;
  task: string;
  class: string;
  run: number;
  sandbox_backend: "bwrap";
  task_asset_snapshot_digest: string | null;
  task_asset_manifest_digest: string | null;
  sandbox_dependency_content_digest: string | null;
  sandbox_dependency_manifest_digest: string | null;
  sanitized_graph_snapshot_digest: string | null;
  sanitized_graph_manifest_digest: string | null;
  // Review arms only (absent on implementation rows, so aggregation computes review metrics only for review cells).
  /** The score dict, or null when the artifact was missing or invalid. */
  review_score?: unknown;
  /** True exactly when `review_score` is not null. */
  review_evidence_valid?: boolean;
  /** File name of the copied review json, or null when there was no regular file to copy. */
  review_artifact?: string | null;
  /** The flattened `review_<key>` score fields (@wfbench/review-scoring `flattenReviewScore`). */
  [reviewField: `review_${string}`]: unknown;
}
