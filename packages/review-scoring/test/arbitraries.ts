import fc from "fast-check";
import type { ReviewFinding, ReviewLabel } from "../src/schema.js";

const severity = fc.constantFrom("critical", "high", "medium", "low" as const);
// Strings where UTF-16 order and code-point order disagree, so the canonical sort is really exercised.
const token = fc.constantFrom("a", "b", "\uff21", "\u{1f600}", "a\u{1f600}", "a\uff21", "zz");
const path = fc.constantFrom("src/a.ts", "src/\uff21.ts", "src/\u{1f600}.ts");
const category = fc.constantFrom("correctness", "security", "\uff41", "\u{1f41b}");

/** A parser-shaped finding list: unique ids, valid ranges, small line space so overlaps are common. */
export function findingsArb(maxLength: number, maxLine = 12): fc.Arbitrary<ReviewFinding[]> {
  return fc
    .array(
      fc.record({
        severity, path, category, line: fc.integer({ min: 1, max: maxLine }), extent: fc.integer({ min: 0, max: 4 }),
        scenario: token, evidence: token, recommendation: token, blocking: fc.boolean(), tag: token,
      }),
      { maxLength },
    )
    .map((rows) =>
      rows.map(({ extent, tag, line, ...rest }, index) => ({ id: `${tag}${index}`, line, end_line: line + extent, ...rest })),
    );
}

/** A parser-shaped label list with unique ids. */
export function labelsArb(maxLength: number, maxLine = 12): fc.Arbitrary<ReviewLabel[]> {
  return fc
    .array(
      fc.record({ severity, path, category, line: fc.integer({ min: 1, max: maxLine }), extent: fc.integer({ min: 0, max: 6 }), tag: token }),
      { maxLength },
    )
    .map((rows) =>
      rows.map(({ extent, tag, line, ...rest }, index) => ({ id: `${tag}L${index}`, line_start: line, line_end: line + extent, ...rest })),
    );
}

/** Any verdict name. */
export const verdictArb = fc.constantFrom("approve", "comment", "request_changes" as const);
