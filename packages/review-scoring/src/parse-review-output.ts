import {
  FIELD_BYTE_LIMITS,
  MAX_FINDINGS,
  MAX_REVIEW_BYTES,
  REVIEW_FINDING_KEYS,
  REVIEW_OUTPUT_KEYS,
  REVIEW_SCHEMA_VERSION,
  VERDICTS,
  type Verdict,
} from "./constants.js";
import { ReviewInvariantError } from "./errors.js";
import type { JsonValue } from "./parse-strict-json.js";
import { casefoldPython, stripPython } from "@wfbench/pycompat";
import { readBoundedRegularFile, type ReadFileIssue } from "./read-bounded-file.js";
import type { Result } from "./result.js";
import type { ReviewOutputIssueCode, ReviewParseIssue } from "./review-issue.js";
import { ReviewOutputSchema, type ReviewFinding, type ReviewOutput } from "./schema.js";
import { DocumentValidator, FirstIssue, describeJson } from "./validate-document.js";

const SUBJECT = "review output";

/** Refusal returned by parseReviewOutput. */
export type ReviewOutputIssue = ReviewParseIssue<ReviewOutputIssueCode>;

/**
 * Parses review-output.json from a path (read without following a final symlink, without blocking on a FIFO,
 * regular files of at most 256 KiB only) or from bytes. Trusts nothing the model wrote: every rule of the format
 * is checked and the first failure is returned as a coded issue; throws only if its own invariants break.
 */
export function parseReviewOutput(input: string | Uint8Array): Result<ReviewOutput, ReviewOutputIssue> {
  let bytes: Uint8Array;
  if (typeof input === "string") {
    const read = readBoundedRegularFile(input, MAX_REVIEW_BYTES);
    if (!read.ok) return { ok: false, error: describeReadIssue(read.error) };
    bytes = read.bytes;
  } else {
    bytes = input;
  }
  const validator = new DocumentValidator(SUBJECT, "REVIEW_OUTPUT");
  let output: ReviewOutput;
  try {
    output = validateReviewOutput(validator, validator.decode(bytes, MAX_REVIEW_BYTES));
  } catch (thrown) {
    if (thrown instanceof FirstIssue) return { ok: false, error: thrown.issue as ReviewOutputIssue };
    throw thrown;
  }
  // The hand-written rules and the exported schema must agree; a mismatch is a bug here, not bad input.
  const check = ReviewOutputSchema.safeParse(output);
  if (!check.success) {
    throw new ReviewInvariantError(`parsed review output violates ReviewOutputSchema: ${check.error.message}`);
  }
  return { ok: true, value: output };
}

function describeReadIssue(issue: ReadFileIssue): ReviewOutputIssue {
  switch (issue.kind) {
    case "missing":
      return { code: "REVIEW_OUTPUT_MISSING", message: `${SUBJECT} was never written (no file at the expected path)` };
    case "symlink":
      return {
        code: "REVIEW_OUTPUT_SYMLINK",
        message: `${SUBJECT} is a symbolic link; write a regular file in place instead`,
      };
    case "not-regular":
      return {
        code: "REVIEW_OUTPUT_NOT_REGULAR",
        message: `${SUBJECT} is a ${issue.fileType}, not a regular file`,
      };
    case "too-large":
      return {
        code: "REVIEW_OUTPUT_TOO_LARGE",
        message: `${SUBJECT} is larger than ${MAX_REVIEW_BYTES} bytes (got ${issue.bytes}); report fewer, shorter findings`,
      };
    case "unreadable":
      return { code: "REVIEW_OUTPUT_UNREADABLE", message: `${SUBJECT} is unreadable: ${issue.reason}` };
  }
}

function findingLabel(index: number, id?: string): string {
  return id === undefined ? `finding ${index + 1}` : `finding ${index + 1} (id ${JSON.stringify(id.slice(0, 80))})`;
}

function validateReviewOutput(v: DocumentValidator, document: JsonValue): ReviewOutput {
  const top = v.exactObject(document, REVIEW_OUTPUT_KEYS, "", "top level", "NOT_OBJECT", "TOP_LEVEL_KEYS");
  v.schemaVersion(top.get("schema_version"), REVIEW_SCHEMA_VERSION);

  const rawVerdict = top.get("verdict");
  const folded = typeof rawVerdict === "string" ? casefoldPython(stripPython(rawVerdict)) : undefined;
  const verdict: Verdict | undefined = VERDICTS.find((candidate) => candidate === folded);
  if (verdict === undefined) {
    v.fail("VERDICT", `verdict must be one of ${VERDICTS.join(", ")}, got ${describeJson(rawVerdict)}`, { pointer: "/verdict" });
  }

  const rawFindings = top.get("findings");
  if (!Array.isArray(rawFindings)) {
    v.fail("FINDINGS_NOT_LIST", `findings must be a JSON list, got ${describeJson(rawFindings)}`, { pointer: "/findings" });
  }
  if (rawFindings.length > MAX_FINDINGS) {
    v.fail("TOO_MANY_FINDINGS", `has ${rawFindings.length} findings; report at most ${MAX_FINDINGS}, the most important first`, {
      pointer: "/findings",
    });
  }

  const findings: ReviewFinding[] = rawFindings.map((raw, index) => validateFinding(v, raw, index));
  v.uniqueIds(
    findings.map((finding) => finding.id),
    (index) => findingLabel(index),
  );

  if (verdict === "approve" && findings.length > 0) {
    v.fail(
      "APPROVE_WITH_FINDINGS",
      `approves but lists ${findings.length} finding(s); use comment or request_changes, or drop the findings`,
      { pointer: "/verdict" },
    );
  }
  if (verdict === "request_changes" && !findings.some((finding) => finding.blocking)) {
    v.fail(
      "REQUEST_CHANGES_WITHOUT_BLOCKING",
      "requests changes but no finding has blocking true; mark the blocking finding or use comment",
      { pointer: "/verdict" },
    );
  }
  return { schema_version: REVIEW_SCHEMA_VERSION, verdict, findings };
}

function validateFinding(v: DocumentValidator, raw: JsonValue, index: number): ReviewFinding {
  const base = `/findings/${index}`;
  const fields = v.exactObject(raw, REVIEW_FINDING_KEYS, base, findingLabel(index), "FINDING_NOT_OBJECT", "FINDING_KEYS");
  const id = v.text(fields.get("id"), FIELD_BYTE_LIMITS.id, `${base}/id`, `${findingLabel(index)} id`);
  const where = (key: string): string => `${findingLabel(index, id)} ${key}`;
  const severity = v.severity(fields.get("severity"), `${base}/severity`, where("severity"));
  const path = v.path(fields.get("path"), FIELD_BYTE_LIMITS.path, `${base}/path`, where("path"));
  const line = v.positiveInt(fields.get("line"), `${base}/line`, where("line"));
  const endLine = v.positiveInt(fields.get("end_line"), `${base}/end_line`, where("end_line"));
  v.lineRange(line, endLine, `${base}/end_line`, findingLabel(index, id), "line", "end_line");
  const category = v.category(fields.get("category"), FIELD_BYTE_LIMITS.category, `${base}/category`, where("category"));
  const scenario = v.text(fields.get("scenario"), FIELD_BYTE_LIMITS.scenario, `${base}/scenario`, where("scenario"));
  const evidence = v.text(fields.get("evidence"), FIELD_BYTE_LIMITS.evidence, `${base}/evidence`, where("evidence"));
  const recommendation = v.text(
    fields.get("recommendation"),
    FIELD_BYTE_LIMITS.recommendation,
    `${base}/recommendation`,
    where("recommendation"),
  );
  const blocking = fields.get("blocking");
  if (typeof blocking !== "boolean") {
    v.fail("BLOCKING_NOT_BOOL", `${where("blocking")} must be true or false, got ${describeJson(blocking)}`, {
      pointer: `${base}/blocking`,
    });
  }
  return { id, severity, path, line, end_line: endLine, category, scenario, evidence, recommendation, blocking };
}
