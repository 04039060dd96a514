import { z } from "zod";
import {
  FIELD_BYTE_LIMITS,
  MAX_FINDINGS,
  REVIEW_SCHEMA_VERSION,
  SEVERITIES,
  SUGGESTED_CATEGORIES,
  VERDICTS,
} from "./constants.js";
import { normalizeRepoPath } from "./normalize-repo-path.js";
import { casefoldPython, stripPython, utf8ByteLength } from "@wfbench/pycompat";

// Two families live here. The *File* schemas describe the canonical form a reviewer should write (they
// feed the JSON Schema export). The parsed schemas describe what parseReviewOutput / parseLabels return
// and what scoreReview accepts: stripped, case-folded, normalised, with the cross-field rules enforced.

/** A severity name. */
export const SeveritySchema = z.enum(SEVERITIES);

/** A verdict name. */
export const VerdictSchema = z.enum(VERDICTS);

function wireText(field: keyof typeof FIELD_BYTE_LIMITS, description: string) {
  const limit = FIELD_BYTE_LIMITS[field];
  return z
    .string()
    .min(1)
    .max(limit)
    .regex(/\S/)
    // JavaScript's \S and Python's strip() disagree (e.g. U+001C), so blankness is also checked the parser's way.
    .refine((value) => stripPython(value).length > 0, "must not be blank")
    .refine((value) => utf8ByteLength(stripPython(value)) <= limit, `at most ${limit} UTF-8 bytes`)
    .describe(`${description} Nonblank; at most ${limit} UTF-8 bytes after stripping surrounding whitespace.`);
}

function wirePath(description: string) {
  return wireText("path", description).refine(
    (value) => normalizeRepoPath(stripPython(value)).ok,
    "must be repository-relative (no leading '/', not '.', no '..' escape)",
  );
}

const wireLine = (description: string) => z.int().min(1).describe(description);

/** One finding as a reviewer should write it in review-output.json (canonical form). */
export const ReviewOutputFindingFileSchema = z
  .strictObject({
    id: wireText("id", "Identifier unique within this file."),
    severity: SeveritySchema.describe("How bad the defect is; critical and high are blockers."),
    path: wirePath("Repository-relative path of the file ('/' separators, no leading '/', no '..')."),
    line: wireLine("First affected line (1-based)."),
    end_line: wireLine("Last affected line (1-based, >= line)."),
    category: wireText("category", `Kind of defect, e.g. ${SUGGESTED_CATEGORIES.join(", ")}.`),
    scenario: wireText("scenario", "When the defect shows up."),
    evidence: wireText("evidence", "What in the diff demonstrates it."),
    recommendation: wireText("recommendation", "What to change."),
    blocking: z.boolean().describe("Whether this finding alone justifies request_changes."),
  })
  .refine((finding) => finding.end_line >= finding.line, { message: "end_line must be >= line", path: ["end_line"] });

/** The whole review-output.json as a reviewer should write it (canonical form). */
export const ReviewOutputFileSchema = z
  .strictObject({
    schema_version: z.literal(REVIEW_SCHEMA_VERSION),
    verdict: VerdictSchema.describe(
      "approve: no findings at all; request_changes: at least one finding with blocking true; comment otherwise.",
    ),
    findings: z.array(ReviewOutputFindingFileSchema).max(MAX_FINDINGS).describe("Actionable defects only; ids unique."),
  })
  .describe("review-output.json: the only artifact a review session writes.");

/** One hidden label as an author writes it in a labels file (canonical form). */
export const ReviewLabelFileSchema = z
  .strictObject({
    id: wireText("id", "Identifier unique within this file."),
    severity: SeveritySchema,
    path: wirePath("Repository-relative path of the defect."),
    line_start: wireLine("First line of the defect (1-based)."),
    line_end: wireLine("Last line of the defect (1-based, >= line_start)."),
    category: wireText("category", "Kind of defect."),
  })
  .refine((label) => label.line_end >= label.line_start, { message: "line_end must be >= line_start", path: ["line_end"] });

/** A whole labels file (review-labels.json); a clean control has an empty findings list. */
export const ReviewLabelsFileSchema = z
  .strictObject({
    schema_version: z.literal(REVIEW_SCHEMA_VERSION),
    findings: z.array(ReviewLabelFileSchema),
  })
  .describe("Hidden human labels of one review case.");

function parsedText(limit: number) {
  return z.string().refine(
    (value) => value.length > 0 && stripPython(value) === value && utf8ByteLength(value) <= limit,
    `must be stripped, nonblank and at most ${limit} UTF-8 bytes`,
  );
}

// The byte limit applies to the stripped text before case folding, and folding can triple the UTF-8 size
// (U+0390 is 2 bytes and folds to 6), so a parsed category may legitimately exceed the raw limit.
const CASEFOLD_MAX_BYTE_GROWTH = 3;

const parsedCategory = parsedText(FIELD_BYTE_LIMITS.category * CASEFOLD_MAX_BYTE_GROWTH).refine(
  (value) => casefoldPython(value) === value,
  "must be case-folded",
);

// Not parsedText: normpath runs after stripping, so "x/../ b.ts" legitimately becomes " b.ts".
const parsedPath = z.string().refine((value) => {
  const normalized = normalizeRepoPath(value);
  return utf8ByteLength(value) <= FIELD_BYTE_LIMITS.path && normalized.ok && normalized.path === value;
}, `must be a normalised repository-relative path of at most ${FIELD_BYTE_LIMITS.path} UTF-8 bytes`);

const parsedLine = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

function uniqueIds(items: readonly { id: string }[]): boolean {
  return new Set(items.map((item) => item.id)).size === items.length;
}

/** A finding as returned by parseReviewOutput and accepted by scoreReview. */
export const ReviewFindingSchema = z
  .strictObject({
    id: parsedText(FIELD_BYTE_LIMITS.id),
    severity: SeveritySchema,
    path: parsedPath,
    line: parsedLine,
    end_line: parsedLine,
    category: parsedCategory,
    scenario: parsedText(FIELD_BYTE_LIMITS.scenario),
    evidence: parsedText(FIELD_BYTE_LIMITS.evidence),
    recommendation: parsedText(FIELD_BYTE_LIMITS.recommendation),
    blocking: z.boolean(),
  })
  .refine((finding) => finding.end_line >= finding.line, { message: "end_line must be >= line", path: ["end_line"] });

/** A parsed finding (normalised). */
export type ReviewFinding = z.infer<typeof ReviewFindingSchema>;

/** The findings list accepted by scoreReview: at most MAX_FINDINGS, ids unique. */
export const ReviewFindingListSchema = z
  .array(ReviewFindingSchema)
  .max(MAX_FINDINGS)
  .refine(uniqueIds, "finding ids must be unique");

/** A parsed review-output.json, coherence rules included. */
export const ReviewOutputSchema = z
  .strictObject({
    schema_version: z.literal(REVIEW_SCHEMA_VERSION),
    verdict: VerdictSchema,
    findings: ReviewFindingListSchema,
  })
  .refine((output) => output.verdict !== "approve" || output.findings.length === 0, "approve must have no findings")
  .refine(
    (output) => output.verdict !== "request_changes" || output.findings.some((finding) => finding.blocking),
    "request_changes needs a blocking finding",
  );

/** A parsed review-output.json. */
export type ReviewOutput = z.infer<typeof ReviewOutputSchema>;

/** A label as returned by parseLabels and accepted by scoreReview. */
export const ReviewLabelSchema = z
  .strictObject({
    id: parsedText(FIELD_BYTE_LIMITS.id),
    severity: SeveritySchema,
    path: parsedPath,
    line_start: parsedLine,
    line_end: parsedLine,
    category: parsedCategory,
  })
  .refine((label) => label.line_end >= label.line_start, { message: "line_end must be >= line_start", path: ["line_end"] });

/** A parsed hidden label (normalised). */
export type ReviewLabel = z.infer<typeof ReviewLabelSchema>;

/** The labels list accepted by scoreReview: ids unique. */
export const ReviewLabelListSchema = z.array(ReviewLabelSchema).refine(uniqueIds, "label ids must be unique");

/** A parsed labels file. */
export const ReviewLabelsSchema = z.strictObject({
  schema_version: z.literal(REVIEW_SCHEMA_VERSION),
  findings: ReviewLabelListSchema,
});

/** A parsed labels file. */
export type ReviewLabels = z.infer<typeof ReviewLabelsSchema>;

// The score dict is a results-row field, so its schema lives with the row contract; scoring produces exactly it.
export { ReviewScoreSchema } from "@wfbench/result-row";
export type { ReviewScore } from "@wfbench/result-row";
