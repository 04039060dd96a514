import { FIELD_BYTE_LIMITS, MAX_LABELS_BYTES, REVIEW_LABEL_KEYS, REVIEW_LABELS_KEYS, REVIEW_SCHEMA_VERSION } from "./constants.js";
import { ReviewInvariantError } from "./errors.js";
import type { JsonValue } from "./parse-strict-json.js";
import type { Result } from "./result.js";
import type { ReviewLabelsIssueCode, ReviewParseIssue } from "./review-issue.js";
import { ReviewLabelsSchema, type ReviewLabel, type ReviewLabels } from "./schema.js";
import { DocumentValidator, FirstIssue, describeJson } from "./validate-document.js";

/** Refusal returned by parseLabels. */
export type ReviewLabelsIssue = ReviewParseIssue<ReviewLabelsIssueCode>;

function labelName(index: number, id?: string): string {
  return id === undefined ? `label ${index + 1}` : `label ${index + 1} (id ${JSON.stringify(id.slice(0, 80))})`;
}

/**
 * Parses hidden labels (review-labels.json bytes from the oracle snapshot). Trusts nothing: at most 512 KiB,
 * UTF-8, strict JSON, exact keys, case-folded severity/category, repository-relative paths, unique ids.
 * Failures are returned as coded issues; throws only if its own invariants break.
 */
export function parseLabels(bytes: Uint8Array): Result<ReviewLabels, ReviewLabelsIssue> {
  const v = new DocumentValidator("review labels", "REVIEW_LABELS");
  let labels: ReviewLabels;
  try {
    labels = validateLabels(v, v.decode(bytes, MAX_LABELS_BYTES));
  } catch (thrown) {
    if (thrown instanceof FirstIssue) return { ok: false, error: thrown.issue as ReviewLabelsIssue };
    throw thrown;
  }
  const check = ReviewLabelsSchema.safeParse(labels);
  if (!check.success) throw new ReviewInvariantError(`parsed labels violate ReviewLabelsSchema: ${check.error.message}`);
  return { ok: true, value: labels };
}

function validateLabels(v: DocumentValidator, document: JsonValue): ReviewLabels {
  const top = v.exactObject(document, REVIEW_LABELS_KEYS, "", "top level", "NOT_OBJECT", "TOP_LEVEL_KEYS");
  v.schemaVersion(top.get("schema_version"), REVIEW_SCHEMA_VERSION);
  const raw = top.get("findings");
  if (!Array.isArray(raw)) {
    v.fail("FINDINGS_NOT_LIST", `findings must be a JSON list, got ${describeJson(raw)}`, { pointer: "/findings" });
  }
  const findings = raw.map((item, index): ReviewLabel => {
    const base = `/findings/${index}`;
    const fields = v.exactObject(item, REVIEW_LABEL_KEYS, base, labelName(index), "FINDING_NOT_OBJECT", "FINDING_KEYS");
    const id = v.text(fields.get("id"), FIELD_BYTE_LIMITS.id, `${base}/id`, `${labelName(index)} id`);
    const where = (key: string): string => `${labelName(index, id)} ${key}`;
    const severity = v.severity(fields.get("severity"), `${base}/severity`, where("severity"));
    const path = v.path(fields.get("path"), FIELD_BYTE_LIMITS.path, `${base}/path`, where("path"));
    const lineStart = v.positiveInt(fields.get("line_start"), `${base}/line_start`, where("line_start"));
    const lineEnd = v.positiveInt(fields.get("line_end"), `${base}/line_end`, where("line_end"));
    v.lineRange(lineStart, lineEnd, `${base}/line_end`, labelName(index, id), "line_start", "line_end");
    const category = v.category(fields.get("category"), FIELD_BYTE_LIMITS.category, `${base}/category`, where("category"));
    return { id, severity, path, line_start: lineStart, line_end: lineEnd, category };
  });
  v.uniqueIds(
    findings.map((label) => label.id),
    (index) => labelName(index),
  );
  return { schema_version: REVIEW_SCHEMA_VERSION, findings };
}
