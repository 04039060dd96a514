import { roundHalfEven } from "./python-round.js";

/** Renders a number for a reason string with a fixed precision, so reasons are byte-stable across runs. */
export function formatNumber(value: number, digits: number): string {
  const rounded = roundHalfEven(value, digits);
  // -0 would print as "-0.0" only on some paths; a reason must not depend on the sign of zero.
  return (Object.is(rounded, -0) ? 0 : rounded).toFixed(digits);
}
