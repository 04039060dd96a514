import { REVIEW_LABELS_TARGET } from "./limits.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";

/** Result of taking the hidden review labels out of a snapshot. */
export type ReadReviewLabelsResult =
  | { readonly ok: true; readonly value: Buffer }
  | { readonly ok: false; readonly error: { readonly rule: "review-labels-target"; readonly message: string } };

/**
 * Returns a copy of the captured `review-labels.json` bytes for review-scoring's label parser. Trusts only the
 * snapshot (never a file in a workspace); refuses a snapshot without exactly that target. Parsing is not done here.
 */
export function readReviewLabels(snapshot: OracleSnapshot): ReadReviewLabelsResult {
  if (!snapshot.files.some((file) => file.target === REVIEW_LABELS_TARGET))
    return {
      ok: false,
      error: { rule: "review-labels-target", message: `oracle snapshot has no '${REVIEW_LABELS_TARGET}' target` },
    };
  return { ok: true, value: snapshot.readFile(REVIEW_LABELS_TARGET) };
}
