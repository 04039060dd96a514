// Decisions are recomputed and compared for exact equality, so rounding must reproduce Python's round():
// nearest decimal of the exact binary value, exact ties to even. Math.round(x*10^n)/10^n gets ties wrong.

/** Rounds like Python's round(value, digits); one implementation shared with review-scoring's score rounding. */
export { roundHalfEven } from "@wfbench/review-scoring";

/** Median like Python's statistics.median (mean of the middle pair); refuses an empty list by throwing RangeError. */
export function computeMedian(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
