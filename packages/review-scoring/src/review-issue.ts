/** Rules whose failure the review-output parser reports, one code each. */
export const REVIEW_OUTPUT_RULES = [
  "MISSING",
  "UNREADABLE",
  "SYMLINK",
  "NOT_REGULAR",
  "TOO_LARGE",
  "EMPTY",
  "NOT_UTF8",
  "NOT_JSON",
  "DUPLICATE_KEY",
  "NOT_OBJECT",
  "TOP_LEVEL_KEYS",
  "SCHEMA_VERSION",
  "VERDICT",
  "FINDINGS_NOT_LIST",
  "TOO_MANY_FINDINGS",
  "FINDING_NOT_OBJECT",
  "FINDING_KEYS",
  "NOT_STRING",
  "BLANK",
  "TOO_LONG",
  "SEVERITY",
  "PATH_NOT_RELATIVE",
  "LINE_NOT_POSITIVE_INT",
  "LINE_RANGE",
  "BLOCKING_NOT_BOOL",
  "DUPLICATE_ID",
  "APPROVE_WITH_FINDINGS",
  "REQUEST_CHANGES_WITHOUT_BLOCKING",
] as const;

/** Rules whose failure the labels parser reports, one code each. */
export const REVIEW_LABELS_RULES = [
  "TOO_LARGE",
  "EMPTY",
  "NOT_UTF8",
  "NOT_JSON",
  "DUPLICATE_KEY",
  "NOT_OBJECT",
  "TOP_LEVEL_KEYS",
  "SCHEMA_VERSION",
  "FINDINGS_NOT_LIST",
  "FINDING_NOT_OBJECT",
  "FINDING_KEYS",
  "NOT_STRING",
  "BLANK",
  "TOO_LONG",
  "SEVERITY",
  "PATH_NOT_RELATIVE",
  "LINE_NOT_POSITIVE_INT",
  "LINE_RANGE",
  "DUPLICATE_ID",
] as const;

/** Stable code of a review-output refusal. */
export type ReviewOutputIssueCode = `REVIEW_OUTPUT_${(typeof REVIEW_OUTPUT_RULES)[number]}`;

/** Stable code of a labels refusal. */
export type ReviewLabelsIssueCode = `REVIEW_LABELS_${(typeof REVIEW_LABELS_RULES)[number]}`;

/** A refusal returned (never thrown) by the parsers: stable code, actionable message, and where it happened. */
export interface ReviewParseIssue<C extends string = ReviewOutputIssueCode | ReviewLabelsIssueCode> {
  code: C;
  message: string;
  /** JSON pointer of the offending value, e.g. `/findings/2/line`; absent for file-level problems. */
  pointer?: string;
  /** 1-based line and column for JSON syntax problems. */
  line?: number;
  column?: number;
}
