import { ReviewScoreInputError } from "./errors.js";
import { compareCodePoints } from "@wfbench/digest";
import { ReviewFindingListSchema, ReviewLabelListSchema, type ReviewFinding, type ReviewLabel } from "./schema.js";

/** One matched pair; indices refer to the canonically sorted lists. */
export interface ReviewPair {
  actualIndex: number;
  expectedIndex: number;
  actual: ReviewFinding;
  expected: ReviewLabel;
}

/** Canonically ordered inputs and the matching over them. */
export interface ReviewMatching {
  actual: ReviewFinding[];
  expected: ReviewLabel[];
  /** Matched pairs in ascending actual index. */
  pairs: ReviewPair[];
}

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Canonical order of findings: (id, severity, path, line, end_line, category, scenario, evidence, recommendation, blocking). */
export function compareFindings(a: ReviewFinding, b: ReviewFinding): number {
  return (
    compareCodePoints(a.id, b.id) ||
    compareCodePoints(a.severity, b.severity) ||
    compareCodePoints(a.path, b.path) ||
    compareNumbers(a.line, b.line) ||
    compareNumbers(a.end_line, b.end_line) ||
    compareCodePoints(a.category, b.category) ||
    compareCodePoints(a.scenario, b.scenario) ||
    compareCodePoints(a.evidence, b.evidence) ||
    compareCodePoints(a.recommendation, b.recommendation) ||
    compareNumbers(Number(a.blocking), Number(b.blocking))
  );
}

/** Canonical order of labels: (id, severity, path, line_start, line_end, category). */
export function compareLabels(a: ReviewLabel, b: ReviewLabel): number {
  return (
    compareCodePoints(a.id, b.id) ||
    compareCodePoints(a.severity, b.severity) ||
    compareCodePoints(a.path, b.path) ||
    compareNumbers(a.line_start, b.line_start) ||
    compareNumbers(a.line_end, b.line_end) ||
    compareCodePoints(a.category, b.category)
  );
}

/** Validates scorer inputs against the parsed schemas; throws ReviewScoreInputError (a caller bug) on mismatch. */
export function assertScorerInputs(actual: readonly ReviewFinding[], expected: readonly ReviewLabel[]): void {
  const findings = ReviewFindingListSchema.safeParse(actual);
  if (!findings.success) {
    throw new ReviewScoreInputError(`findings are not parser output: ${findings.error.message}`);
  }
  const labels = ReviewLabelListSchema.safeParse(expected);
  if (!labels.success) throw new ReviewScoreInputError(`labels are not parser output: ${labels.error.message}`);
}

interface Edge {
  expectedIndex: number;
  categoryEqual: number;
  severityEqual: number;
  distance: number;
  span: number;
}

// The reference sorts every candidate by (rank..., actual_index, expected_index) descending and then fills
// adjacency lists. Within one actual finding the rank's trailing (a.path, a.category, a.line) terms and the
// actual index are constant, so sorting each list by the remaining terms yields the same adjacency order.
function compareEdgesDescending(x: Edge, y: Edge): number {
  return (
    y.categoryEqual - x.categoryEqual ||
    y.severityEqual - x.severityEqual ||
    x.distance - y.distance ||
    x.span - y.span ||
    y.expectedIndex - x.expectedIndex
  );
}

/**
 * Maximum-cardinality matching of findings to labels (Kuhn's augmenting paths over rank-ordered adjacency,
 * roots in ascending canonical index, a fresh visited set per root). Trusts only parser-shaped input (validated).
 */
export function matchReviewFindings(
  actualInput: readonly ReviewFinding[],
  expectedInput: readonly ReviewLabel[],
): ReviewMatching {
  assertScorerInputs(actualInput, expectedInput);
  return matchSortedFindings([...actualInput].sort(compareFindings), [...expectedInput].sort(compareLabels));
}

/** Matching over already validated, canonically sorted lists (internal; scoreReview validates first). */
export function matchSortedFindings(actual: ReviewFinding[], expected: ReviewLabel[]): ReviewMatching {
  const byPath = new Map<string, number[]>();
  expected.forEach((label, index) => {
    const list = byPath.get(label.path);
    if (list === undefined) byPath.set(label.path, [index]);
    else list.push(index);
  });

  const adjacency: number[][] = actual.map((finding) => {
    const edges: Edge[] = [];
    for (const expectedIndex of byPath.get(finding.path) ?? []) {
      const label = expected[expectedIndex] as ReviewLabel;
      if (finding.line > label.line_end || finding.end_line < label.line_start) continue;
      edges.push({
        expectedIndex,
        categoryEqual: finding.category === label.category ? 1 : 0,
        severityEqual: finding.severity === label.severity ? 1 : 0,
        distance: Math.abs(finding.line - label.line_start),
        span: label.line_end - label.line_start,
      });
    }
    edges.sort(compareEdgesDescending);
    return edges.map((edge) => edge.expectedIndex);
  });

  const ownerOf = new Int32Array(expected.length).fill(-1);
  const seenStamp = new Int32Array(expected.length).fill(-1);
  for (let root = 0; root < actual.length; root++) augment(root, adjacency, ownerOf, seenStamp);

  const pairs: ReviewPair[] = [];
  ownerOf.forEach((actualIndex, expectedIndex) => {
    if (actualIndex < 0) return;
    pairs.push({
      actualIndex,
      expectedIndex,
      actual: actual[actualIndex] as ReviewFinding,
      expected: expected[expectedIndex] as ReviewLabel,
    });
  });
  pairs.sort((x, y) => x.actualIndex - y.actualIndex);
  return { actual, expected, pairs };
}

interface Frame {
  actualIndex: number;
  next: number;
  tried: number;
}

// Iterative form of the recursive DFS `try(a): for e in adj[a]: if e unseen: mark; if free or try(owner(e)):
// take e`. An explicit stack keeps deep re-routing chains off the call stack with the same visiting order.
function augment(root: number, adjacency: number[][], ownerOf: Int32Array, seenStamp: Int32Array): boolean {
  const stack: Frame[] = [{ actualIndex: root, next: 0, tried: -1 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const edges = adjacency[frame.actualIndex] as number[];
    if (frame.next >= edges.length) {
      stack.pop();
      continue;
    }
    const expectedIndex = edges[frame.next++] as number;
    if (seenStamp[expectedIndex] === root) continue;
    seenStamp[expectedIndex] = root;
    frame.tried = expectedIndex;
    const owner = ownerOf[expectedIndex] as number;
    if (owner < 0) {
      for (const step of stack) ownerOf[step.tried] = step.actualIndex;
      return true;
    }
    stack.push({ actualIndex: owner, next: 0, tried: -1 });
  }
  return false;
}
