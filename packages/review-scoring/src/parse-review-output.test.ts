import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIELD_BYTE_LIMITS, MAX_FINDINGS, MAX_REVIEW_BYTES } from "./constants.js";
import { parseReviewOutput } from "./parse-review-output.js";
import { REVIEW_OUTPUT_RULES, type ReviewOutputIssueCode } from "./review-issue.js";

const encoder = new TextEncoder();
const bytesOf = (value: unknown): Uint8Array => encoder.encode(typeof value === "string" ? value : JSON.stringify(value));

function finding(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "f1", severity: "high", path: "src/app.ts", line: 3, end_line: 5, category: "correctness",
    scenario: "on retry", evidence: "the loop never exits", recommendation: "bound the loop", blocking: true, ...over,
  };
}

function review(over: Record<string, unknown> = {}, findings: unknown = [finding()]): Record<string, unknown> {
  return { schema_version: 1, verdict: "request_changes", findings, ...over };
}

function codeOf(input: Uint8Array): string {
  const result = parseReviewOutput(input);
  if (result.ok) throw new Error("expected a refusal");
  return result.error.code;
}

describe("parseReviewOutput", () => {
  describe("accepting", () => {
    it("parses the strict schema and keeps blocking as a boolean", () => {
      const result = parseReviewOutput(bytesOf(review({}, [finding(), finding({ id: "f2", blocking: false })])));
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.value.findings.map((f) => f.blocking)).toEqual([true, false]);
      expect(result.value).toEqual({ schema_version: 1, verdict: "request_changes", findings: [finding(), finding({ id: "f2", blocking: false })] });
    });

    it("case-folds verdict, severity and category, strips text and normalises the path", () => {
      const result = parseReviewOutput(
        bytesOf(review({ verdict: " Request_Changes " }, [
          finding({ id: "  f1 ", severity: "HIGH", category: " Straße ", path: ".\\src//lib/../app.ts", scenario: "\u0085 s \u001f" }),
        ])),
      );
      expect(result).toMatchObject({
        ok: true,
        value: { verdict: "request_changes", findings: [{ id: "f1", severity: "high", category: "strasse", path: "src/app.ts", scenario: "s" }] },
      });
    });

    it("accepts approve with no findings and comment with non-blocking findings", () => {
      expect(parseReviewOutput(bytesOf(review({ verdict: "approve" }, [])))).toMatchObject({ ok: true });
      expect(parseReviewOutput(bytesOf(review({ verdict: "comment" }, [finding({ blocking: false })])))).toMatchObject({ ok: true });
      expect(parseReviewOutput(bytesOf(review({ verdict: "comment" }, [])))).toMatchObject({ ok: true });
    });

    it("accepts exactly MAX_FINDINGS findings and a file of exactly MAX_REVIEW_BYTES", () => {
      const many = Array.from({ length: MAX_FINDINGS }, (_, i) => finding({ id: `f${i}` }));
      expect(parseReviewOutput(bytesOf(review({}, many))).ok).toBe(true);
      const text = JSON.stringify(review());
      const padded = text + " ".repeat(MAX_REVIEW_BYTES - text.length);
      expect(parseReviewOutput(bytesOf(padded)).ok).toBe(true);
    });
    it("accepts every text field at exactly its byte limit, measured after stripping", () => {
      // Two-byte characters make byte and character counts differ; the padding must not count (§3.4 "stripped").
      const atLimit = (limit: number, char: string) => ` \t${char.repeat(limit / new TextEncoder().encode(char).length)}\n `;
      const fields = {
        id: atLimit(FIELD_BYTE_LIMITS.id, "é"),
        path: atLimit(FIELD_BYTE_LIMITS.path, "a"),
        category: atLimit(FIELD_BYTE_LIMITS.category, "c"),
        scenario: atLimit(FIELD_BYTE_LIMITS.scenario, "é"),
        evidence: atLimit(FIELD_BYTE_LIMITS.evidence, "e"),
        recommendation: atLimit(FIELD_BYTE_LIMITS.recommendation, "é"),
      };
      const result = parseReviewOutput(bytesOf(review({}, [finding(fields)])));
      expect(result).toMatchObject({ ok: true });
      if (!result.ok) return;
      const [parsed] = result.value.findings;
      for (const [key, raw] of Object.entries(fields)) {
        expect(new TextEncoder().encode(String(parsed?.[key as keyof typeof fields])).length).toBe(
          FIELD_BYTE_LIMITS[key as keyof typeof FIELD_BYTE_LIMITS],
        );
        expect(raw.length).toBeGreaterThan(4);
      }
    });

    it("applies the category byte limit before case folding, so a folded category may grow past it", () => {
      // U+0390 is 2 bytes and folds to 3 code points (6 bytes): 128 bytes in, 384 bytes out.
      const result = parseReviewOutput(bytesOf(review({}, [finding({ category: "\u0390".repeat(64) })])));
      expect(result).toMatchObject({ ok: true, value: { findings: [{ category: "\u03b9\u0308\u0301".repeat(64) }] } });
    });

    it("keeps a path whose normalised form keeps inner spaces at its ends, as posixpath.normpath does", () => {
      const result = parseReviewOutput(bytesOf(review({}, [finding({ path: "x/../ b.ts" }), finding({ id: "f2", path: "b.ts /." })])));
      expect(result).toMatchObject({ ok: true, value: { findings: [{ path: " b.ts" }, { path: "b.ts " }] } });
    });

    it("returns a result and never throws, whatever the field values", () => {
      const piece = fc.constantFrom("a", "..", ".", " ", "\\", "/", "\u0390", "ß", "İ", "\u00a0", "\u0085", "x y", "\u{1f600}");
      const text = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.array(piece, { maxLength: 8 }).map((p) => p.join("")));
      const value = fc.oneof(text, fc.integer({ min: -2, max: 5 }), fc.boolean(), fc.constant(null));
      const row = fc.record({
        id: value, severity: fc.oneof(value, fc.constantFrom("HIGH", " low ", "Critical")), path: value, line: value,
        end_line: value, category: value, scenario: value, evidence: value, recommendation: value, blocking: value,
      });
      fc.assert(
        fc.property(fc.constantFrom("approve", "comment", "request_changes", "COMMENT"), fc.array(row, { maxLength: 3 }), (verdict, rows) => {
          const result = parseReviewOutput(bytesOf({ schema_version: 1, verdict, findings: rows }));
          expect(typeof result.ok).toBe("boolean");
        }),
        { numRuns: 400 },
      );
      // The same property on the fields that are valid apart from the free-text ones, so many cases are accepted.
      fc.assert(
        fc.property(fc.array(fc.record({ path: text, category: text, scenario: text }), { minLength: 1, maxLength: 3 }), (rows) => {
          const findings = rows.map((r, i) => finding({ id: `f${i}`, ...r }));
          const result = parseReviewOutput(bytesOf(review({}, findings)));
          expect(typeof result.ok).toBe("boolean");
        }),
        { numRuns: 400 },
      );
    });
  });

  describe("refusing", () => {
    const cases: [string, Uint8Array, ReviewOutputIssueCode, RegExp][] = [
      ["an empty file", new Uint8Array(), "REVIEW_OUTPUT_EMPTY", /is empty/],
      ["more than 256 KiB", new Uint8Array(MAX_REVIEW_BYTES + 1).fill(0x20), "REVIEW_OUTPUT_TOO_LARGE", /larger than 262144/],
      ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0x7d]), "REVIEW_OUTPUT_NOT_UTF8", /not valid UTF-8/],
      ["an overlong UTF-8 encoding", new Uint8Array([0x22, 0xc0, 0xaf, 0x22]), "REVIEW_OUTPUT_NOT_UTF8", /not valid UTF-8/],
      ["truncated JSON", bytesOf('{"schema_version": 1,\n"verdict": "approve",\n"findings": ['), "REVIEW_OUTPUT_NOT_JSON", /not valid JSON: .* at line 3/],
      ["a UTF-8 byte order mark", bytesOf(`\ufeff${JSON.stringify(review())}`), "REVIEW_OUTPUT_NOT_JSON", /byte order mark/],
      ["a duplicated key", bytesOf('{"schema_version":1,"verdict":"approve","verdict":"comment","findings":[]}'), "REVIEW_OUTPUT_DUPLICATE_KEY", /duplicate key "verdict"/],
      ["a top-level list", bytesOf([]), "REVIEW_OUTPUT_NOT_OBJECT", /must be a JSON object/],
      ["a missing top-level key", bytesOf({ schema_version: 1, verdict: "approve" }), "REVIEW_OUTPUT_TOP_LEVEL_KEYS", /missing "findings"/],
      ["an extra top-level key", bytesOf(review({ summary: "x" })), "REVIEW_OUTPUT_TOP_LEVEL_KEYS", /unexpected "summary"/],
      ["schema_version 2", bytesOf(review({ schema_version: 2 })), "REVIEW_OUTPUT_SCHEMA_VERSION", /schema_version/],
      ["schema_version 1.0", bytesOf('{"schema_version":1.0,"verdict":"approve","findings":[]}'), "REVIEW_OUTPUT_SCHEMA_VERSION", /integer 1/],
      ["schema_version true", bytesOf(review({ schema_version: true })), "REVIEW_OUTPUT_SCHEMA_VERSION", /got true/],
      ["an unknown verdict", bytesOf(review({ verdict: "lgtm" })), "REVIEW_OUTPUT_VERDICT", /approve, comment, request_changes/],
      ["a non-string verdict", bytesOf(review({ verdict: 1 })), "REVIEW_OUTPUT_VERDICT", /verdict/],
      ["findings as an object", bytesOf(review({}, {})), "REVIEW_OUTPUT_FINDINGS_NOT_LIST", /must be a JSON list/],
      ["too many findings", bytesOf(review({}, Array.from({ length: MAX_FINDINGS + 1 }, (_, i) => finding({ id: `f${i}` })))), "REVIEW_OUTPUT_TOO_MANY_FINDINGS", /at most 100/],
      ["a finding that is a string", bytesOf(review({}, ["bug"])), "REVIEW_OUTPUT_FINDING_NOT_OBJECT", /finding 1 must be a JSON object/],
      ["a finding missing a key", bytesOf(review({}, [{ ...finding(), blocking: undefined }])), "REVIEW_OUTPUT_FINDING_KEYS", /missing "blocking"/],
      ["a finding with an extra key", bytesOf(review({}, [finding({ confidence: 0.9 })])), "REVIEW_OUTPUT_FINDING_KEYS", /unexpected "confidence"/],
      ["a numeric id", bytesOf(review({}, [finding({ id: 7 })])), "REVIEW_OUTPUT_NOT_STRING", /id must be a string/],
      ["a blank id", bytesOf(review({}, [finding({ id: " \t " })])), "REVIEW_OUTPUT_BLANK", /id must not be blank/],
      ["an id over 128 bytes", bytesOf(review({}, [finding({ id: "é".repeat(65) })])), "REVIEW_OUTPUT_TOO_LONG", /at most 128 UTF-8 bytes, got 130/],
      ["an unknown severity", bytesOf(review({}, [finding({ severity: "blocker" })])), "REVIEW_OUTPUT_SEVERITY", /critical, high, medium, low/],
      ["a blank path", bytesOf(review({}, [finding({ path: "  " })])), "REVIEW_OUTPUT_BLANK", /path must not be blank/],
      ["a path over 512 bytes", bytesOf(review({}, [finding({ path: `src/${"a".repeat(509)}` })])), "REVIEW_OUTPUT_TOO_LONG", /512/],
      ["a ../ path", bytesOf(review({}, [finding({ path: "../etc/passwd" })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /repository-relative/],
      ["a path escaping after normalisation", bytesOf(review({}, [finding({ path: "src/../../x" })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /normalises to "\.\.\/x"/],
      ["an absolute path", bytesOf(review({}, [finding({ path: "/workspace/src/app.ts" })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /repository-relative/],
      ["a backslash absolute path", bytesOf(review({}, [finding({ path: "\\etc\\passwd" })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /repository-relative/],
      ["the path '.'", bytesOf(review({}, [finding({ path: "./" })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /repository-relative/],
      ["the path '..'", bytesOf(review({}, [finding({ path: "a/../.." })])), "REVIEW_OUTPUT_PATH_NOT_RELATIVE", /repository-relative/],
      ["line 0", bytesOf(review({}, [finding({ line: 0 })])), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /line must be a positive integer/],
      ["a negative end_line", bytesOf(review({}, [finding({ end_line: -5 })])), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /end_line must be a positive integer/],
      ["a boolean line", bytesOf(review({}, [finding({ line: true })])), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /got true/],
      ["a float line", bytesOf(JSON.stringify(review()).replace('"line":3', '"line":3.0')), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /got the number 3\.0/],
      ["an exponent line", bytesOf(JSON.stringify(review()).replace('"line":3', '"line":3e0')), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /3e0/],
      ["a string line", bytesOf(review({}, [finding({ line: "3" })])), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /got the string "3"/],
      ["a line beyond 2^53", bytesOf(JSON.stringify(review()).replace('"line":3', '"line":9007199254740993')), "REVIEW_OUTPUT_LINE_NOT_POSITIVE_INT", /at most 9007199254740991/],
      ["end_line before line", bytesOf(review({}, [finding({ line: 9, end_line: 8 })])), "REVIEW_OUTPUT_LINE_RANGE", /end_line 8 before line 9/],
      ["a blank category", bytesOf(review({}, [finding({ category: "" })])), "REVIEW_OUTPUT_BLANK", /category must not be blank/],
      ["a category over 128 bytes", bytesOf(review({}, [finding({ category: "c".repeat(129) })])), "REVIEW_OUTPUT_TOO_LONG", /category must be at most 128/],
      ["a blank scenario", bytesOf(review({}, [finding({ scenario: "\n" })])), "REVIEW_OUTPUT_BLANK", /scenario must not be blank/],
      ["a null evidence", bytesOf(review({}, [finding({ evidence: null })])), "REVIEW_OUTPUT_NOT_STRING", /evidence must be a string, got null/],
      ["a recommendation over 4096 bytes", bytesOf(review({}, [finding({ recommendation: "r".repeat(4097) })])), "REVIEW_OUTPUT_TOO_LONG", /recommendation must be at most 4096/],
      ["blocking as a string", bytesOf(review({}, [finding({ blocking: "true" })])), "REVIEW_OUTPUT_BLOCKING_NOT_BOOL", /must be true or false/],
      ["blocking as 1", bytesOf(review({}, [finding({ blocking: 1 })])), "REVIEW_OUTPUT_BLOCKING_NOT_BOOL", /must be true or false/],
      ["duplicate ids", bytesOf(review({}, [finding(), finding({ id: " f1" })])), "REVIEW_OUTPUT_DUPLICATE_ID", /finding 2 repeats id "f1" already used by finding 1/],
      ["approve with findings", bytesOf(review({ verdict: "approve" })), "REVIEW_OUTPUT_APPROVE_WITH_FINDINGS", /approves but lists 1 finding/],
      ["request_changes without a blocking finding", bytesOf(review({}, [finding({ blocking: false })])), "REVIEW_OUTPUT_REQUEST_CHANGES_WITHOUT_BLOCKING", /no finding has blocking true/],
      ["request_changes with no findings", bytesOf(review({}, [])), "REVIEW_OUTPUT_REQUEST_CHANGES_WITHOUT_BLOCKING", /blocking/],
    ];

    it.each(cases)("refuses %s", (_name, input, code, message) => {
      const result = parseReviewOutput(input);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe(code);
      expect(result.error.message).toMatch(message);
      expect(result.error.message.startsWith("review output ")).toBe(true);
      expect(result.error.message.length).toBeLessThan(600);
    });

    it("reports the offending field as a JSON pointer and JSON errors with line and column", () => {
      const field = parseReviewOutput(bytesOf(review({}, [finding(), finding({ id: "f2", end_line: 1 })])));
      expect(field).toMatchObject({ ok: false, error: { pointer: "/findings/1/end_line" } });
      const syntax = parseReviewOutput(bytesOf('{\n  "schema_version": 1,\n  "verdict": "approve" "findings": []}'));
      expect(syntax).toMatchObject({ ok: false, error: { code: "REVIEW_OUTPUT_NOT_JSON", line: 3, column: 24 } });
    });

    it("stops at the first failing rule in document order", () => {
      const input = bytesOf(review({ verdict: "nope" }, [finding({ line: 0 })]));
      expect(codeOf(input)).toBe("REVIEW_OUTPUT_VERDICT");
      expect(codeOf(bytesOf(review({}, [finding({ id: "", line: 0 })])))).toBe("REVIEW_OUTPUT_BLANK");
    });

    it("truncates echoed model text in messages", () => {
      const result = parseReviewOutput(bytesOf(review({ verdict: "x".repeat(5000) })));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message.length).toBeLessThan(300);
    });

    it("covers every rule code with a distinct code string", () => {
      expect(new Set(REVIEW_OUTPUT_RULES).size).toBe(REVIEW_OUTPUT_RULES.length);
      const exercised = new Set(cases.map(([, , code]) => code));
      const fileOnly = ["REVIEW_OUTPUT_MISSING", "REVIEW_OUTPUT_UNREADABLE", "REVIEW_OUTPUT_SYMLINK", "REVIEW_OUTPUT_NOT_REGULAR"];
      const untested = REVIEW_OUTPUT_RULES.map((rule) => `REVIEW_OUTPUT_${rule}`).filter(
        (code) => !exercised.has(code as ReviewOutputIssueCode) && !fileOnly.includes(code),
      );
      expect(untested).toEqual([]);
    });
  });
});
