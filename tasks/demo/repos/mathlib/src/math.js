// Small numeric helpers.

/** Sum of a list of numbers (0 for an empty list). */
export function sum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  if (values.length === 0) throw new RangeError("mean of an empty list");
  return sum(values) / values.length;
}
