import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_LABELS_BYTES } from "./constants.js";
import { parseLabels } from "./parse-labels.js";
import { REVIEW_LABELS_RULES, type ReviewLabelsIssueCode } from "./review-issue.js";

const bytesOf = (value: unknown): Uint8Array =>
  new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));

function label(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "pr3124-unreadable-skill-treated-as-missing", severity: "high", path: "gitnexus/src/cli/ai-context.ts",
    line_start: 447, line_end: 452, category: "correctness", ...over,
  };
}
const file = (findings: unknown, over: Record<string, unknown> = {}) => ({ schema_version: 1, findings, ...over });

describe("parseLabels", () => {
  it("parses the reference example and a clean control", () => {
    expect(parseLabels(bytesOf(file([label()])))).toEqual({ ok: true, value: file([label()]) });
    expect(parseLabels(bytesOf('{"schema_version":1,"findings":[]}'))).toEqual({ ok: true, value: { schema_version: 1, findings: [] } });
  });

  it("case-folds severity and category and normalises the path", () => {
    const result = parseLabels(bytesOf(file([label({ severity: "Critical", category: " Security ", path: "gitnexus\\src/./x.ts" })])));
    expect(result).toMatchObject({ ok: true, value: { findings: [{ severity: "critical", category: "security", path: "gitnexus/src/x.ts" }] } });
  });

  it("applies the category byte limit before case folding and keeps a normalised path's inner edge spaces", () => {
    // U+0390 folds to 3 code points: a 128-byte category becomes 384 bytes; "x/../ y.ts" normalises to " y.ts".
    const result = parseLabels(bytesOf(file([label({ category: "\u0390".repeat(64), path: "x/../ y.ts" })])));
    expect(result).toMatchObject({ ok: true, value: { findings: [{ category: "\u03b9\u0308\u0301".repeat(64), path: " y.ts" }] } });
  });

  it("returns a result and never throws, whatever the field values", () => {
    const piece = fc.constantFrom("a", "..", ".", " ", "\\", "/", "\u0390", "ß", "İ", "\u00a0", "\u0085", "x y");
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.array(piece, { maxLength: 8 }).map((p) => p.join("")));
    fc.assert(
      fc.property(fc.array(fc.record({ path: text, category: text, id: text }), { maxLength: 3 }), (rows) => {
        const result = parseLabels(bytesOf(file(rows.map((row) => label(row)))));
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 400 },
    );
  });

  const cases: [string, Uint8Array, ReviewLabelsIssueCode, RegExp][] = [
    ["an empty file", new Uint8Array(), "REVIEW_LABELS_EMPTY", /review labels is empty/],
    ["more than 512 KiB", new Uint8Array(MAX_LABELS_BYTES + 1).fill(0x20), "REVIEW_LABELS_TOO_LARGE", /larger than 524288/],
    ["invalid UTF-8", new Uint8Array([0xfe]), "REVIEW_LABELS_NOT_UTF8", /not valid UTF-8/],
    ["bad JSON", bytesOf("{"), "REVIEW_LABELS_NOT_JSON", /not valid JSON/],
    ["a duplicate key", bytesOf('{"schema_version":1,"findings":[],"findings":[]}'), "REVIEW_LABELS_DUPLICATE_KEY", /duplicate key/],
    ["a string document", bytesOf('"labels"'), "REVIEW_LABELS_NOT_OBJECT", /JSON object/],
    ["an extra top-level key", bytesOf(file([], { corpus: "x" })), "REVIEW_LABELS_TOP_LEVEL_KEYS", /unexpected "corpus"/],
    ["schema_version 0", bytesOf(file([], { schema_version: 0 })), "REVIEW_LABELS_SCHEMA_VERSION", /schema_version/],
    ["findings null", bytesOf(file(null)), "REVIEW_LABELS_FINDINGS_NOT_LIST", /JSON list/],
    ["a label that is a list", bytesOf(file([[]])), "REVIEW_LABELS_FINDING_NOT_OBJECT", /label 1 must be a JSON object/],
    ["a review-output style label", bytesOf(file([{ ...label(), line: 1 }])), "REVIEW_LABELS_FINDING_KEYS", /unexpected "line"/],
    ["a numeric id", bytesOf(file([label({ id: 1 })])), "REVIEW_LABELS_NOT_STRING", /id must be a string/],
    ["a blank id", bytesOf(file([label({ id: "" })])), "REVIEW_LABELS_BLANK", /id must not be blank/],
    ["an id over 128 bytes", bytesOf(file([label({ id: "i".repeat(129) })])), "REVIEW_LABELS_TOO_LONG", /128/],
    ["an unknown severity", bytesOf(file([label({ severity: "p0" })])), "REVIEW_LABELS_SEVERITY", /one of critical/],
    ["an escaping path", bytesOf(file([label({ path: "../x.ts" })])), "REVIEW_LABELS_PATH_NOT_RELATIVE", /repository-relative/],
    ["a float line_start", bytesOf(JSON.stringify(file([label()])).replace('"line_start":447', '"line_start":447.5')), "REVIEW_LABELS_LINE_NOT_POSITIVE_INT", /line_start must be a positive integer/],
    ["a zero line_end", bytesOf(file([label({ line_end: 0 })])), "REVIEW_LABELS_LINE_NOT_POSITIVE_INT", /line_end/],
    ["line_end before line_start", bytesOf(file([label({ line_end: 446 })])), "REVIEW_LABELS_LINE_RANGE", /line_end 446 before line_start 447/],
    ["a blank category", bytesOf(file([label({ category: "\t" })])), "REVIEW_LABELS_BLANK", /category must not be blank/],
    ["duplicate ids", bytesOf(file([label(), label({ line_start: 1, line_end: 1 })])), "REVIEW_LABELS_DUPLICATE_ID", /label 2 repeats id/],
  ];

  it.each(cases)("refuses %s", (_name, input, code, message) => {
    const result = parseLabels(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(code);
    expect(result.error.message).toMatch(message);
  });

  it("exercises every labels rule code", () => {
    const exercised = new Set<string>(cases.map(([, , code]) => code));
    expect(REVIEW_LABELS_RULES.map((rule) => `REVIEW_LABELS_${rule}`).filter((code) => !exercised.has(code))).toEqual([]);
  });
});
