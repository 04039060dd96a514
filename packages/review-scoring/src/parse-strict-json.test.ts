import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonNumber, MAX_JSON_DEPTH, parseStrictJson, type JsonValue } from "./parse-strict-json.js";

function toPlain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return Number(value.raw);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, toPlain(v)]));
  return value;
}

describe("parseStrictJson", () => {
  it("agrees with JSON.parse on any JSON without duplicate keys", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const parsed = parseStrictJson(text);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(toPlain(parsed.value)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ["5", true],
    ["-5", true],
    ["5.0", false],
    ["5e0", false],
    ["5E+1", false],
  ])("marks %s as integer=%s", (text, isInteger) => {
    const parsed = parseStrictJson(text);
    expect(parsed.ok && parsed.value instanceof JsonNumber && parsed.value.isInteger).toBe(isInteger);
  });

  it("keeps __proto__ as plain data", () => {
    const parsed = parseStrictJson('{"__proto__": {"polluted": true}}');
    expect(parsed.ok && parsed.value instanceof Map && parsed.value.has("__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("decodes escapes and paired surrogates", () => {
    expect(parseStrictJson(String.raw`"a\n\u00e9\ud83d\ude00\/"`)).toEqual({ ok: true, value: "a\né\u{1f600}/" });
  });

  it.each([
    ["NaN", "expecting a value", 1, 1],
    ["[1,]", "expecting a value", 1, 4],
    ["01", "extra data", 1, 2],
    ['{"a":1}x', "extra data", 1, 8],
    ["\n\n  {'a':1}", "property name", 3, 4],
    ['"tab\there"', "control character", 1, 5],
    ['"\\x"', "invalid escape", 1, 2],
    ['"\\ud800"', "unpaired surrogate", 1, 2],
    ['"\\udc00\\ud800"', "unpaired surrogate", 1, 2],
    ['"\\u12g4"', "uXXXX", 1, 2],
    ['"open', "unterminated string", 1, 1],
    ['{"a" 1}', "expecting ':'", 1, 6],
    ["[1 2]", "expecting ',' or ']'", 1, 4],
    ["\ufeff{}", "byte order mark", 1, 1],
    ["", "expecting a value", 1, 1],
  ])("refuses %j with %s at line %i column %i", (text, message, line, column) => {
    const parsed = parseStrictJson(text);
    expect(parsed).toMatchObject({ ok: false, error: { kind: "syntax", line, column } });
    if (!parsed.ok) expect(parsed.error.message).toContain(message);
  });

  it("refuses duplicate keys as their own kind", () => {
    expect(parseStrictJson('{"a":1,\n"a":2}')).toMatchObject({ ok: false, error: { kind: "duplicate-key", line: 2, column: 1 } });
  });

  it("bounds nesting depth without overflowing the stack", () => {
    expect(parseStrictJson("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parseStrictJson("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toMatchObject({ ok: false });
    expect(parseStrictJson("[".repeat(100_000)).ok).toBe(false);
  });
});
