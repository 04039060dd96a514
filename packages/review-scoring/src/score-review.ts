import { BLOCKING_SEVERITIES, SEVERITY_WEIGHT, VERDICTS, type Severity, type Verdict } from "./constants.js";
import { ReviewScoreInputError } from "./errors.js";
import { assertScorerInputs, compareFindings, compareLabels, matchSortedFindings } from "./match-findings.js";
import { stripPython } from "@wfbench/pycompat";
import { roundHalfEven6 } from "./round-half-even.js";
import { REVIEW_SCORE_KEYS, type ReviewRowFields, type ReviewScoreKey } from "@wfbench/result-row";
import type { ReviewFinding, ReviewLabel, ReviewScore } from "./schema.js";

/** Score keys in the order they are flattened into result rows as `review_<key>` (defined by the row contract). */
export { REVIEW_SCORE_KEYS };

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

// Harmonic mean with the reference's fallback: a complete miss against real labels scores 0, not null.
function harmonic(precision: number | null, recall: number | null, hasLabels: boolean): number | null {
  if (precision !== null && recall !== null && precision + recall > 0) {
    return (2 * precision * recall) / (precision + recall);
  }
  return hasLabels ? 0.0 : null;
}

function isBlocker(severity: Severity): boolean {
  return BLOCKING_SEVERITIES.has(severity);
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : roundHalfEven6(value);
}

/** The verdict a review should give for these labels: approve, request_changes (any blocker) or comment. */
export function expectedVerdict(labels: readonly ReviewLabel[]): Verdict {
  if (labels.length === 0) return "approve";
  return labels.some((label) => isBlocker(label.severity)) ? "request_changes" : "comment";
}

/**
 * Scores one review against hidden labels, deterministically and independent of input order. Trusts only
 * parser-shaped input: the findings and labels are re-validated and a mismatch throws ReviewScoreInputError.
 */
export function scoreReview(
  verdict: Verdict,
  findings: readonly ReviewFinding[],
  labels: readonly ReviewLabel[],
): ReviewScore {
  if (!(VERDICTS as readonly string[]).includes(verdict)) {
    throw new ReviewScoreInputError(`verdict ${JSON.stringify(String(verdict)).slice(0, 80)} is not one of ${VERDICTS.join(", ")}`);
  }
  assertScorerInputs(findings, labels);
  const actual = [...findings].sort(compareFindings);
  const expected = [...labels].sort(compareLabels);
  const { pairs } = matchSortedFindings(actual, expected);

  const tp = pairs.length;
  const fp = actual.length - tp;
  const fn = expected.length - tp;
  const hasLabels = expected.length > 0;

  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  const f1 = harmonic(precision, recall, hasLabels);

  const matchedActual = new Set(pairs.map((pair) => pair.actualIndex));
  let expectedWeight = 0;
  for (const label of expected) expectedWeight += SEVERITY_WEIGHT[label.severity];
  let matchedWeight = 0;
  for (const pair of pairs) {
    matchedWeight += Math.min(SEVERITY_WEIGHT[pair.actual.severity], SEVERITY_WEIGHT[pair.expected.severity]);
  }
  let fpWeight = 0;
  actual.forEach((finding, index) => {
    if (!matchedActual.has(index)) fpWeight += SEVERITY_WEIGHT[finding.severity];
  });
  const weightedPrecision = ratio(matchedWeight, matchedWeight + fpWeight);
  const weightedRecall = hasLabels ? matchedWeight / expectedWeight : null;
  const weightedF1 = harmonic(weightedPrecision, weightedRecall, hasLabels);

  const blockers = expected.filter((label) => isBlocker(label.severity)).length;
  // Credit goes by severity, not the `blocking` flag: a downgraded report of a blocker earns nothing here.
  const recalledBlockers = pairs.filter((pair) => isBlocker(pair.expected.severity) && isBlocker(pair.actual.severity)).length;
  const blockerRecall = ratio(recalledBlockers, blockers);

  const severityAccuracy = ratio(pairs.filter((pair) => pair.actual.severity === pair.expected.severity).length, tp);
  const categoryAccuracy = ratio(pairs.filter((pair) => pair.actual.category === pair.expected.category).length, tp);
  const grounded = actual.filter(
    (finding) => finding.path.length > 0 && finding.line > 0 && stripPython(finding.evidence).length > 0,
  ).length;
  const groundedEvidence = ratio(grounded, actual.length);

  const cleanControl = !hasLabels;
  const isFiniteOrNull = (value: number | null): boolean => value === null || Number.isFinite(value);

  return {
    true_positives: tp,
    false_positives: fp,
    false_negatives: fn,
    precision: roundOrNull(precision),
    recall: roundOrNull(recall),
    f1: roundOrNull(f1),
    weighted_precision: roundOrNull(weightedPrecision),
    weighted_recall: roundOrNull(weightedRecall),
    weighted_f1: roundOrNull(weightedF1),
    blocker_recall: roundOrNull(blockerRecall),
    severity_accuracy: roundOrNull(severityAccuracy),
    category_accuracy: roundOrNull(categoryAccuracy),
    grounded_evidence: roundOrNull(groundedEvidence),
    verdict_correct: verdict === expectedVerdict(expected),
    clean_control: cleanControl,
    clean_pass: cleanControl && actual.length === 0 && verdict === "approve",
    score_finite: isFiniteOrNull(precision) && isFiniteOrNull(recall) && isFiniteOrNull(weightedF1),
  };
}

/** The review oracle: a score exists, no false positive, no false negative, and the verdict is right. */
export function isReviewOraclePassed(score: ReviewScore | null | undefined): boolean {
  return score != null && score.false_positives === 0 && score.false_negatives === 0 && score.verdict_correct;
}

/**
 * Row fields for a review arm: `review_score` (the score itself), `review_evidence_valid` and every `review_<key>`
 * (null when unscored), typed by the row contract; trusts a score from scoreReview.
 */
export function flattenReviewScore(score: ReviewScore | null): Omit<ReviewRowFields, "review_artifact"> {
  const at = <K extends ReviewScoreKey>(key: K): ReviewScore[K] | null => (score === null ? null : score[key]);
  return {
    review_score: score,
    review_evidence_valid: score !== null,
    review_true_positives: at("true_positives"),
    review_false_positives: at("false_positives"),
    review_false_negatives: at("false_negatives"),
    review_precision: at("precision"),
    review_recall: at("recall"),
    review_f1: at("f1"),
    review_weighted_precision: at("weighted_precision"),
    review_weighted_recall: at("weighted_recall"),
    review_weighted_f1: at("weighted_f1"),
    review_blocker_recall: at("blocker_recall"),
    review_severity_accuracy: at("severity_accuracy"),
    review_category_accuracy: at("category_accuracy"),
    review_grounded_evidence: at("grounded_evidence"),
    review_verdict_correct: at("verdict_correct"),
    review_clean_control: at("clean_control"),
    review_clean_pass: at("clean_pass"),
    review_score_finite: at("score_finite"),
  };
}
