import { sha256Hex } from "@wfbench/digest";
import { REVIEW_ARMS, isSupportedArm, resolveIncumbentArm } from "@wfbench/result-row";

/** sha256 of zero bytes: every arm that changed nothing shares it, so an empty patch is no fingerprint. */
const EMPTY_PATCH_DIGEST = sha256Hex(new Uint8Array(0));

// A review arm's workspace is read-only: its patch is the case's own uncommitted change, the same for every review arm.
function isReviewArm(arm: string): boolean {
  return isSupportedArm(arm) && REVIEW_ARMS.includes(resolveIncumbentArm(arm));
}

/** The row fields the alarm reads. */
export interface ContaminationFacts {
  readonly task: string;
  readonly run: number;
  readonly arm: string;
  readonly diff_digest?: string | null | undefined;
}

/** Folds rows in commit (canonical) order and stamps each with the alarm's verdict. */
export interface ContaminationTracker {
  /**
   * Returns `row` with `contamination_arms`: the arms already seen for the same task and run whose non-empty patch has
   * this row's `diff_digest`, in the order they were seen ([] when none). The later row carries the flag.
   */
  mark<Row extends ContaminationFacts>(row: Row): Row & { contamination_arms: string[] };
}

/**
 * The contamination alarm (reference §5.9): byte-identical non-empty patches from different arms of one task and run
 * hint that one arm saw another's work (shared state). Trusts each row's `diff_digest`; a null digest, an empty patch
 * or a review arm (read-only workspace: its patch is the case's fixture) never matches. One tracker per results.jsonl, fed in the order rows are written.
 */
export function createContaminationTracker(): ContaminationTracker {
  const seen = new Map<string, { arm: string; digest: string }[]>();
  return {
    mark(row) {
      const key = JSON.stringify([row.task, row.run]);
      const earlier = seen.get(key) ?? [];
      const digest = row.diff_digest ?? null;
      const fingerprint = digest === null || digest === EMPTY_PATCH_DIGEST || isReviewArm(row.arm) ? null : digest;
      const arms = fingerprint === null ? [] : earlier.filter((other) => other.digest === fingerprint && other.arm !== row.arm).map((other) => other.arm);
      if (fingerprint !== null) seen.set(key, [...earlier, { arm: row.arm, digest: fingerprint }]);
      return { ...row, contamination_arms: arms };
    },
  };
}
