import type { ResultRowFields } from "@wfbench/result-row";
import { isCandidateArm, isCeArm } from "@wfbench/result-row";
import { digestTaskPrompt } from "@wfbench/task-suite";
import type { RunCellInput } from "./cell-input.js";

/** A row being measured: every field but the recording time, which is stamped when the row is built. */
export type CellDraft = Omit<ResultRowFields, "recorded_at">;

/** What the empty row of a cell is made of (a RunCellInput is one). */
export type EmptyRowInput = Pick<RunCellInput, "arm" | "run" | "model" | "effort" | "proposerModel" | "upstream" | "overlay" | "cePlugin" | "runtimeDigest"> & {
  readonly backend?: Pick<NonNullable<RunCellInput["backend"]>, "kind">;
  readonly task: Pick<RunCellInput["task"], "id" | "ref" | "class" | "prompt">;
  readonly source: Pick<RunCellInput["source"], "sha"> & Partial<Pick<RunCellInput["source"], "assets">>;
  readonly template: Pick<RunCellInput["template"], "sanitizedSha">;
  readonly oracle: { readonly binding: Pick<RunCellInput["oracle"]["binding"], "oracle_digest" | "oracle_command_digest" | "oracle_manifest_digest"> };
};

/**
 * The row of a cell before anything ran: identity and provenance filled in, every measurement null (never a made-up
 * 0), every flag false, nothing resolved. The stages fill in what they measure; a failure keeps what was measured.
 */
export function emptyRow(input: EmptyRowInput): CellDraft {
  const { task, arm, run } = input;
  const binding = input.oracle.binding;
  return {
    input_tokens: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    duration_s: null,
    num_turns: null,
    ok: false,
    session_ids: [],
    error_kind: null,
    error_detail: null,
    skill_invoked: null,
    transcript_missing: false,
    transcript_artifacts: [],
    evidence_diagnostics: [],
    gitnexus_tool_uses: null,
    mcp_tool_uses: null,
    tool_use_counts: null,
    wire_requests: null,
    wire_failed_requests: null,
    wire_input_tokens: null,
    wire_output_tokens: null,
    wire_cache_read_input_tokens: null,
    wire_cache_creation_input_tokens: null,
    wire_cost_usd: null,
    wire_usage_complete: null,
    wire_price_tables: [],
    wire_unaccounted_requests: null,
    wire_unaccounted_cost_usd: null,
    cost_disagreement_ratio: null,
    cost_disagreement_flagged: false,
    upstream: input.upstream,
    arm,
    plan_produced: false,
    authored_tests_passed: false,
    authored_test_output: "",
    verify_output: "",
    oracle_passed: false,
    oracle_output: "",
    resolved: false,
    oracle_digest: binding.oracle_digest,
    oracle_command_digest: binding.oracle_command_digest,
    oracle_manifest_digest: binding.oracle_manifest_digest,
    diff_files: null,
    diff_insertions: null,
    diff_deletions: null,
    patch_artifact: null,
    diff_digest: null,
    model: input.model,
    benchmark_model: input.model,
    proposer_model: input.proposerModel,
    effort: input.effort,
    task_ref: task.ref,
    task_base_sha: input.source.sha,
    sanitized_task_sha: input.template.sanitizedSha,
    variant_head_sha: null,
    task_prompt_digest: digestTaskPrompt(task.prompt),
    skill_digest: null,
    candidate_overlay_digest: isCandidateArm(arm) ? (input.overlay?.digest ?? null) : null,
    runtime_digest: input.runtimeDigest ?? null,
    task: task.id,
    class: task.class,
    run,
    sandbox_backend: input.backend?.kind ?? "bwrap",
    // Null for a task that declares no sandbox_copy / sandbox_dependencies (nothing was captured).
    task_asset_snapshot_digest: input.source.assets?.snapshotDigest ?? null,
    task_asset_manifest_digest: input.source.assets?.manifestDigest ?? null,
    sandbox_dependency_content_digest: input.source.assets?.dependencyContentDigest ?? null,
    sandbox_dependency_manifest_digest: input.source.assets?.dependencyManifestDigest ?? null,
    sanitized_graph_snapshot_digest: null,
    sanitized_graph_manifest_digest: null,
    // CE rows say which plugin release and which exact bytes the comparator ran (reuse and reports match on both).
    ...(isCeArm(arm) ? { ce_plugin_version: input.cePlugin?.version ?? null, ce_plugin_manifest_digest: input.cePlugin?.manifestDigest ?? null } : {}),
  };
}

/** Records measured fields in a draft; typed, so a misspelt or mistyped field does not compile. */
export function recordFields(draft: CellDraft, fields: Partial<CellDraft>): void {
  Object.assign(draft, fields);
}
