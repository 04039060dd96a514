/** Severity scale, most to least severe; the only values a finding or label may carry after case folding. */
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;

/** A severity name from SEVERITIES. */
export type Severity = (typeof SEVERITIES)[number];

/** Severities that count as blockers for blocker recall and the verdict rule (the `blocking` flag never does). */
export const BLOCKING_SEVERITIES: ReadonlySet<Severity> = new Set<Severity>(["critical", "high"]);

/** Weight of each severity in the severity-weighted scores. */
export const SEVERITY_WEIGHT: Readonly<Record<Severity, number>> = Object.freeze({
  critical: 8.0,
  high: 5.0,
  medium: 2.0,
  low: 1.0,
});

/** Verdicts a review may give after case folding. */
export const VERDICTS = ["approve", "comment", "request_changes"] as const;

/** A verdict name from VERDICTS. */
export type Verdict = (typeof VERDICTS)[number];

/** Categories the prompt suggests; any nonblank category is still accepted. */
export const SUGGESTED_CATEGORIES = ["correctness", "security", "compatibility", "performance", "tests", "other"] as const;

/** Largest review-output.json accepted, in bytes (256 KiB). */
export const MAX_REVIEW_BYTES = 256 * 1024;

/** Largest labels file accepted, in bytes: the per-file cap of an oracle snapshot (512 KiB). */
export const MAX_LABELS_BYTES = 512 * 1024;

/** Most findings one review may report. */
export const MAX_FINDINGS = 100;

/** The only schema_version either file may carry. */
export const REVIEW_SCHEMA_VERSION = 1;

/** File name of the review artifact. */
export const REVIEW_OUTPUT = "review-output.json";

/** Directory the sandbox mounts writable for the review artifact (outside the read-only workspace). */
export const SANDBOX_REVIEW_OUTPUT = "/review-output";

/** Full in-sandbox path the review session is told to write. */
export const SANDBOX_REVIEW_OUTPUT_PATH = `${SANDBOX_REVIEW_OUTPUT}/${REVIEW_OUTPUT}`;

/** Environment variable through which verify and oracle commands find the artifact. */
export const REVIEW_OUTPUT_ENV_VAR = "GITNEXUS_BENCH_REVIEW_OUTPUT";

/** Snapshot target name the hidden labels must be staged under. */
export const REVIEW_LABELS_TARGET = "review-labels.json";

/** Byte limits of the text fields, shared by the parser, the schemas and the prompt contract. */
export const FIELD_BYTE_LIMITS = Object.freeze({
  id: 128,
  path: 512,
  category: 128,
  scenario: 4096,
  evidence: 4096,
  recommendation: 4096,
});

/** Exact key set of a finding in review-output.json, in the order the parser checks them. */
export const REVIEW_FINDING_KEYS = [
  "id",
  "severity",
  "path",
  "line",
  "end_line",
  "category",
  "scenario",
  "evidence",
  "recommendation",
  "blocking",
] as const;

/** Exact key set of a hidden label, in the order the parser checks them. */
export const REVIEW_LABEL_KEYS = ["id", "severity", "path", "line_start", "line_end", "category"] as const;

/** Exact top-level keys of review-output.json. */
export const REVIEW_OUTPUT_KEYS = ["schema_version", "verdict", "findings"] as const;

/** Exact top-level keys of a labels file. */
export const REVIEW_LABELS_KEYS = ["schema_version", "findings"] as const;
