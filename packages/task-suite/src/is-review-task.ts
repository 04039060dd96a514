import type { Task } from "./load-task-suite.js";

/** The staged name of hidden review labels (reference §3.1 / §3.3). */
const REVIEW_LABELS_TARGET = "review-labels.json";

/**
 * True for a review task: its oracle stages exactly one `review-labels.json` (reference §3.1, the oracle validator
 * already refuses more than one). Trusts a validated task; says nothing about the labels' contents.
 */
export function isReviewTask(task: Pick<Task, "oracle">): boolean {
  return task.oracle.files.some((file) => file.target === REVIEW_LABELS_TARGET);
}
