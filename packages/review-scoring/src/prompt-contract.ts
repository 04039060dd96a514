import {
  FIELD_BYTE_LIMITS,
  MAX_FINDINGS,
  SANDBOX_REVIEW_OUTPUT_PATH,
  SEVERITIES,
  SUGGESTED_CATEGORIES,
} from "./constants.js";

/**
 * The output contract appended to both review prompts, naming `outputPath` exactly once. It is built from the
 * same constants the parser enforces, so prompt and parser cannot drift; trusts the caller's path verbatim.
 */
export function buildReviewPromptContract(outputPath: string = SANDBOX_REVIEW_OUTPUT_PATH): string {
  return [
    `Output contract: when the review is done, write your result to ${outputPath} as UTF-8 JSON, one line, shaped exactly as`,
    `{"schema_version":1,"verdict":"approve|comment|request_changes","findings":[{"id":"…","severity":"${SEVERITIES.join("|")}","path":"…","line":1,"end_line":1,"category":"…","scenario":"…","evidence":"…","recommendation":"…","blocking":false}]}.`,
    `Every finding has exactly those ten keys: a unique nonblank id (at most ${FIELD_BYTE_LIMITS.id} bytes); a severity from the list;`,
    `a repository-relative path (no leading "/", no ".."); positive integer line and end_line with end_line >= line; a nonblank category`,
    `such as ${SUGGESTED_CATEGORIES.join(", ")}; nonblank scenario, evidence and recommendation (at most ${FIELD_BYTE_LIMITS.evidence} bytes each);`,
    `and blocking as true or false. Report at most ${MAX_FINDINGS} findings, actionable defects only.`,
    `Use "approve" with an empty findings list when there is no actionable defect; "request_changes" needs at least one finding`,
    `with "blocking": true; otherwise use "comment". Write no Markdown and no text outside the JSON, and edit no other file.`,
  ].join("\n");
}

/** The contract text for the standard in-sandbox path. */
export const REVIEW_PROMPT_CONTRACT = buildReviewPromptContract();
