import { compareCodePoints } from "@wfbench/digest";
import { ResultRowSchema, TRANSCRIPT_SOURCE, type ResultRow } from "@wfbench/result-row";

/** Reference §5.6: the arms whose rows may be carried into a later sweep; candidate arms are always measured fresh. */
export const REUSABLE_ARMS: readonly string[] = ["review", "ce_review", "workflow", "workflow_direct", "ce_workflow", "ce_workflow_direct", "baseline", "baseline_nomcp"];
/** Reference §5.6 max_age: older evidence is measured again (the promotion evidence expiry, Appendix A). */
export const REUSE_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;
/** Largest transcript a reusable row may declare (8 MiB). */
export const MAX_REUSED_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/u;
const TRANSCRIPT_PATH = /^transcripts\/[A-Za-z0-9._-]{1,200}$/u;
const TRANSCRIPT_KEYS = ["bytes", "path", "sha256", "source"];

/** The task facts a reused row must have been measured against (reference §5.6 TaskReuseBinding). */
export interface TaskReuseBinding {
  readonly task_base_sha: string;
  readonly task_prompt_digest: string;
  readonly oracle_digest: string;
  readonly oracle_command_digest: string;
  readonly oracle_manifest_digest: string;
  readonly task_asset_manifest_digest: string | null;
  readonly sandbox_dependency_manifest_digest: string | null;
  /**
   * False when the task declares no sandbox_copy and no dependencies: rows then record both digests as null (nothing
   * was captured), and only a null matches. True: both sides must carry equal digests.
   */
  readonly declares_assets: boolean;
}

/** What this sweep would measure: a row is reused only when it was measured under exactly these facts. */
export interface ReuseExpectation {
  readonly model: string;
  readonly effort: string;
  readonly sandboxBackend: string;
  /** This sweep's runtime digest; null refuses every row (fail closed). */
  readonly runtimeDigest: string | null;
  readonly now: Date;
  readonly maxAgeMs: number;
  readonly tasks: ReadonlyMap<string, TaskReuseBinding>;
  /**
   * The evaluated skills' fingerprint per task and arm ({@link skillKey}); null for an arm without evaluated skills
   * (then only a null row digest matches); an arm missing from the map refuses its rows.
   */
  readonly skillDigests: ReadonlyMap<string, string | null>;
  readonly cePluginVersion: string | null;
  readonly cePluginManifestDigest: string | null;
  /**
   * Per task, the sanitized sha a row must record when the task's facts come from an earlier sweep's template binding
   * instead of a template built now (template preparation skipped); a task absent here is not checked on it.
   */
  readonly sanitizedShas?: ReadonlyMap<string, string>;
}

/** A refused row: the §5.6 rule (1–10, 0 for the row contract) and the field that decided it. */
export interface ReuseRefusal {
  readonly rule: number;
  readonly field: string;
  readonly reason: string;
}

/** Key of {@link ReuseExpectation.skillDigests}. */
export function skillKey(task: string, arm: string): string {
  return `${task}\u0000${arm}`;
}

const refuse = (rule: number, field: string, reason: string): ReuseRefusal => ({ rule, field, reason });
const isNonEmpty = (value: unknown): value is string => typeof value === "string" && value !== "";

// Naive timestamps count as UTC (reference §5.6 rule 3); anything Date cannot read is corrupt.
function parseTime(value: unknown): number | null {
  if (typeof value !== "string" || value === "") return null;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/iu.test(value);
  const time = Date.parse(hasZone ? value : `${value}Z`);
  return Number.isFinite(time) ? time : null;
}

function checkTranscripts(value: unknown): ReuseRefusal | null {
  if (!Array.isArray(value) || value.length === 0) return refuse(10, "transcript_artifacts", "no transcript artifact recorded");
  for (const [index, item] of value.entries()) {
    const field = `transcript_artifacts[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) return refuse(10, field, "not an object");
    const record = item as Record<string, unknown>;
    if (Object.keys(record).sort().join(",") !== TRANSCRIPT_KEYS.join(",")) return refuse(10, field, `keys must be exactly ${TRANSCRIPT_KEYS.join(", ")}`);
    if (record["source"] !== TRANSCRIPT_SOURCE) return refuse(10, `${field}.source`, `must be ${TRANSCRIPT_SOURCE}`);
    if (typeof record["sha256"] !== "string" || !HEX64.test(record["sha256"])) return refuse(10, `${field}.sha256`, "must be 64 lower-case hex characters");
    const bytes = record["bytes"];
    if (typeof bytes !== "number" || !Number.isInteger(bytes) || bytes < 0 || bytes > MAX_REUSED_TRANSCRIPT_BYTES) return refuse(10, `${field}.bytes`, `must be an integer 0..${MAX_REUSED_TRANSCRIPT_BYTES}`);
    if (typeof record["path"] !== "string" || !TRANSCRIPT_PATH.test(record["path"])) return refuse(10, `${field}.path`, "must be transcripts/<name> with a plain file name");
  }
  return null;
}

/**
 * Reference §5.6 `row_is_reusable_comparator`: null when `raw` (one parsed results.jsonl line of an earlier sweep) may
 * stand in for a fresh cell of this sweep, else the first rule it breaks. Pure; trusts nothing in the row and fails
 * closed on every missing fact, on either side.
 */
export function checkReusableRow(raw: unknown, expected: ReuseExpectation): ReuseRefusal | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return refuse(0, "", "not a JSON object");
  const row = raw as Record<string, unknown>;
  const arm = row["arm"];
  if (typeof arm !== "string" || !REUSABLE_ARMS.includes(arm)) return refuse(1, "arm", `${JSON.stringify(arm)} is not a reusable comparator arm`);
  if (row["error_kind"] !== null && row["error_kind"] !== "" && row["error_kind"] !== undefined) return refuse(2, "error_kind", `is ${JSON.stringify(row["error_kind"])}`);
  if (row["ok"] !== true) return refuse(2, "ok", "is not true");
  if (row["transcript_missing"] === true) return refuse(2, "transcript_missing", "is true");
  if (isNonEmpty(row["candidate_overlay_digest"])) return refuse(2, "candidate_overlay_digest", "is set: a candidate measurement");
  const timeField = isNonEmpty(row["reused_from_recorded_at"]) ? "reused_from_recorded_at" : "recorded_at";
  const measured = parseTime(row[timeField]);
  if (measured === null) return refuse(3, timeField, "missing or not a timestamp");
  const age = expected.now.getTime() - measured;
  if (age < 0) return refuse(3, timeField, "lies in the future");
  if (age > expected.maxAgeMs) return refuse(3, timeField, `older than ${Math.round(expected.maxAgeMs / 86_400_000)} days`);
  if (row["model"] !== expected.model && row["benchmark_model"] !== expected.model) return refuse(4, "model", `is ${JSON.stringify(row["model"])}, this sweep runs ${expected.model}`);
  if (row["effort"] !== expected.effort) return refuse(4, "effort", `is ${JSON.stringify(row["effort"])}, this sweep runs ${expected.effort}`);
  if (row["sandbox_backend"] !== expected.sandboxBackend) return refuse(4, "sandbox_backend", `is ${JSON.stringify(row["sandbox_backend"])}, this sweep runs ${expected.sandboxBackend}`);
  if (!isNonEmpty(row["runtime_digest"])) return refuse(5, "runtime_digest", "missing on the row");
  if (!isNonEmpty(expected.runtimeDigest)) return refuse(5, "runtime_digest", "this sweep has none");
  if (row["runtime_digest"] !== expected.runtimeDigest) return refuse(5, "runtime_digest", "differs from this sweep's");
  const task = typeof row["task"] === "string" ? expected.tasks.get(row["task"]) : undefined;
  if (task === undefined) return refuse(6, "task", `${JSON.stringify(row["task"])} is not selected in this sweep`);
  for (const field of ["task_base_sha", "task_prompt_digest", "oracle_digest", "oracle_command_digest", "oracle_manifest_digest"] as const) {
    if (!isNonEmpty(row[field]) || row[field] !== task[field]) return refuse(6, field, "differs from this sweep's task");
  }
  const sanitizedSha = expected.sanitizedShas?.get(row["task"] as string);
  if (sanitizedSha !== undefined && row["sanitized_task_sha"] !== sanitizedSha) return refuse(6, "sanitized_task_sha", "differs from the template the earlier sweep recorded for this task");
  for (const field of ["task_asset_manifest_digest", "sandbox_dependency_manifest_digest"] as const) {
    if (!task.declares_assets) {
      if (row[field] !== null) return refuse(7, field, "recorded, but this sweep's task declares no sandbox assets");
    } else if (!isNonEmpty(row[field]) || !isNonEmpty(task[field]) || row[field] !== task[field]) return refuse(7, field, "missing or differs from this sweep's task");
  }
  if (arm.startsWith("ce_")) {
    for (const [field, want] of [["ce_plugin_version", expected.cePluginVersion], ["ce_plugin_manifest_digest", expected.cePluginManifestDigest]] as const) {
      if (!isNonEmpty(row[field]) || !isNonEmpty(want) || row[field] !== want) return refuse(8, field, "missing or differs from this sweep's plugin");
    }
  } else {
    const key = skillKey(row["task"] as string, arm);
    const want = expected.skillDigests.get(key);
    // An arm that evaluates no skills (baseline) records null; a known null is a fact, an absent entry is not.
    if (!expected.skillDigests.has(key)) return refuse(8, "skill_digest", "this sweep has no skill fingerprint for the arm");
    if (want === null ? row["skill_digest"] !== null : !isNonEmpty(want) || row["skill_digest"] !== want) return refuse(8, "skill_digest", "missing or differs from this sweep's evaluated skills");
  }
  if (arm === "review" || arm === "ce_review") {
    if (row["review_evidence_valid"] !== true) return refuse(9, "review_evidence_valid", "is not true");
    if (!isNonEmpty(row["review_artifact"])) return refuse(9, "review_artifact", "no artifact name");
    const score = row["review_score"];
    if (typeof score !== "object" || score === null || Array.isArray(score)) return refuse(9, "review_score", "not an object");
    if (row["review_weighted_f1"] === null || row["review_weighted_f1"] === undefined) return refuse(9, "review_weighted_f1", "is null");
  }
  const transcripts = checkTranscripts(row["transcript_artifacts"]);
  if (transcripts !== null) return transcripts;
  // Only a complete row of this contract can be written again as it is.
  const parsed = ResultRowSchema.safeParse(row);
  if (!parsed.success) return refuse(0, parsed.error.issues[0]?.path.join(".") ?? "", `the row breaks the current row contract (${parsed.error.issues[0]?.message ?? "invalid"})`);
  return null;
}

/** Identity of a cell: (task, arm, run). */
export function cellKey(task: string, arm: string, run: number): string {
  return `${task}\u0000${arm}\u0000${run}`;
}

/** What {@link selectReusableRows} found in an earlier results log. */
export interface ReuseSelection {
  /** One qualifying row per cell key. */
  readonly rows: ReadonlyMap<string, ResultRow>;
  /** Keys with two qualifying rows that disagree: neither is reused. */
  readonly blocked: readonly string[];
  /** Rows that did not qualify, with the rule they broke (for the report). */
  readonly refused: readonly { readonly line: number; readonly refusal: ReuseRefusal }[];
}

// Reference §5.6: two qualifying rows of one key with different identities block it; identical duplicates are fine.
function identityOf(row: ResultRow): string {
  return JSON.stringify([row.skill_digest, row.oracle_digest, row["review_weighted_f1"] ?? null, row.ce_plugin_manifest_digest ?? null, row.recorded_at]);
}

/**
 * Reference §5.6 `select_reusable_comparator_rows`: the qualifying rows of an earlier log keyed by (task, arm, run),
 * with a non-negative integer run. Pure.
 */
export function selectReusableRows(lines: readonly unknown[], expected: ReuseExpectation): ReuseSelection {
  const rows = new Map<string, ResultRow>();
  const blocked = new Set<string>();
  const refused: { line: number; refusal: ReuseRefusal }[] = [];
  for (const [index, raw] of lines.entries()) {
    const refusal = checkReusableRow(raw, expected);
    if (refusal !== null) {
      refused.push({ line: index + 1, refusal });
      continue;
    }
    const row = ResultRowSchema.parse(raw);
    const key = cellKey(row.task, row.arm, row.run);
    const held = rows.get(key);
    if (held === undefined) rows.set(key, row);
    else if (identityOf(held) !== identityOf(row)) blocked.add(key);
  }
  for (const key of blocked) rows.delete(key);
  return { rows, blocked: [...blocked].sort(compareCodePoints), refused };
}

/**
 * Reference §5.6 health canary: for every arm whose planned cells would all be reused, the lexically first planned
 * key is dropped from `reusable`, so at least one paid cell per arm measures today's environment. Pure; returns the
 * keys to reuse.
 */
export function keepHealthCanaries(planned: readonly { readonly task: string; readonly arm: string; readonly run: number }[], reusable: ReadonlySet<string>): Set<string> {
  const kept = new Set([...reusable].filter((key) => planned.some((cell) => cellKey(cell.task, cell.arm, cell.run) === key)));
  const byArm = new Map<string, string[]>();
  for (const cell of planned) byArm.set(cell.arm, [...(byArm.get(cell.arm) ?? []), cellKey(cell.task, cell.arm, cell.run)]);
  for (const keys of byArm.values()) {
    if (keys.every((key) => kept.has(key))) kept.delete([...keys].sort(compareCodePoints)[0] as string);
  }
  return kept;
}
