import { roundHalfEven } from "@wfbench/pycompat";

/** Python's round(x, 6), the precision every review score is reported at. */
export function roundHalfEven6(x: number): number {
  return roundHalfEven(x, 6);
}
