import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { writeFileExclusive } from "@wfbench/durable-fs";
import { MAX_REVIEW_BYTES, REVIEW_OUTPUT, flattenReviewScore, isReviewOraclePassed, parseLabels, parseReviewOutput, scoreReview } from "@wfbench/review-scoring";
import type { ReviewRowFields } from "@wfbench/result-row";
import { CellPipelineError } from "./errors.js";

/** The fixed oracle strings of a review row (reference §4.2); nothing the model wrote reaches `oracle_output`. */
export const REVIEW_ORACLE_OUTPUT = Object.freeze({
  matched: "hidden review labels matched",
  notMatched: "hidden review labels not fully matched",
} as const);

/** What scoring one review artifact gives its row. */
export interface ReviewArtifactOutcome {
  /** `review_score`, `review_evidence_valid` and every `review_<key>` (null values when the artifact is invalid). */
  readonly fields: Omit<ReviewRowFields, "review_artifact">;
  readonly oraclePassed: boolean;
  readonly oracleOutput: string;
  /** Why the artifact was refused (`<code>: <message>`), or null when it parsed. */
  readonly invalid: string | null;
}

/**
 * Parses the model's review-output.json (only after its session exited; the parser lstat's and opens it no-follow)
 * and scores it against the hidden labels taken from the oracle snapshot. Trusts the label bytes to be the snapshot's;
 * refuses labels that do not parse with CELL_PIPELINE_REVIEW_LABELS_INVALID (a harness fault, not a model outcome).
 */
export function scoreReviewArtifact(reviewOutputDir: string, labelBytes: Uint8Array): ReviewArtifactOutcome {
  const labels = parseLabels(labelBytes);
  if (!labels.ok) throw new CellPipelineError("CELL_PIPELINE_REVIEW_LABELS_INVALID", `hidden review labels: ${labels.error.code}: ${labels.error.message}`);
  const review = parseReviewOutput(join(reviewOutputDir, REVIEW_OUTPUT));
  if (!review.ok) return { fields: flattenReviewScore(null), oraclePassed: false, oracleOutput: REVIEW_ORACLE_OUTPUT.notMatched, invalid: `${review.error.code}: ${review.error.message}` };
  const score = scoreReview(review.value.verdict, review.value.findings, labels.value.findings);
  const passed = isReviewOraclePassed(score);
  return { fields: flattenReviewScore(score), oraclePassed: passed, oracleOutput: passed ? REVIEW_ORACLE_OUTPUT.matched : REVIEW_ORACLE_OUTPUT.notMatched, invalid: null };
}

/**
 * Copies the review artifact to `<outDir>/<name>` (0600, O_EXCL) when it is a regular file of at most 256 KiB (reference
 * §4.1); returns the name, or null when there is nothing to copy. Opens it no-follow and non-blocking, so a link, FIFO
 * or device the model left behind is never followed or waited on.
 */
export async function copyReviewArtifact(reviewOutputDir: string, outDir: string, name: string): Promise<string | null> {
  let source;
  try {
    source = await open(join(reviewOutputDir, REVIEW_OUTPUT), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = await source.stat();
    if (!stat.isFile() || stat.size > MAX_REVIEW_BYTES) return null;
    const buffer = Buffer.alloc(MAX_REVIEW_BYTES + 1);
    const { bytesRead } = await source.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_REVIEW_BYTES) return null;
    await writeFileExclusive(join(outDir, name), buffer.subarray(0, bytesRead), { mode: 0o600 });
    return name;
  } finally {
    await source.close();
  }
}
