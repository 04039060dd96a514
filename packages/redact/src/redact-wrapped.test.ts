import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED } from "./marker.js";
import { isWrappable, redactWrapped } from "./redact-wrapped.js";

const ENCODED = /^[A-Za-z0-9+/=_-]$/;
const isEncoded = (c: string | undefined): boolean => c !== undefined && ENCODED.test(c);

// The model: tokenise the whole text, drop every break block (blanks and raw or escaped CR / LF, at least one of
// them a line break) that sits between two encoded characters, search the joined text for each form (leftmost,
// non-overlapping), and replace the union of the original spans. No windows, no dropped runs, no indexOf skipping.
function modelWrapped(text: string, forms: readonly string[]): string {
  const kept: number[] = [];
  for (let i = 0; i < text.length; ) {
    let end = i;
    let hasBreak = false;
    for (;;) {
      const c = text[end];
      if (c === " " || c === "\t") end += 1;
      else if (c === "\r" || c === "\n") {
        end += 1;
        hasBreak = true;
      } else if (c === "\\") {
        let j = end;
        while (text[j] === "\\") j += 1;
        if (text[j] !== "n" && text[j] !== "r") break;
        end = j + 1;
        hasBreak = true;
      } else break;
    }
    if (end === i) {
      kept.push(i);
      i += 1;
      continue;
    }
    if (!(hasBreak && isEncoded(text[i - 1]) && isEncoded(text[end]))) for (let k = i; k < end; k += 1) kept.push(k);
    i = end;
  }
  const joined = kept.map((k) => text[k]).join("");
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = joined.indexOf(form); at !== -1; at = joined.indexOf(form, at + form.length)) {
      spans.push([kept[at] as number, (kept[at + form.length - 1] as number) + 1]);
    }
  }
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let out = "";
  let last = 0;
  let open: [number, number] | undefined;
  for (const span of [...spans, [Infinity, Infinity] as [number, number]]) {
    if (open !== undefined && span[0] < open[1]) {
      open[1] = Math.max(open[1], span[1]);
      continue;
    }
    if (open !== undefined) {
      out += text.slice(last, open[0]) + REDACTED;
      last = open[1];
    }
    open = [...span];
  }
  return out + text.slice(last);
}

// Text made to straddle breaks: encoded data cut at random points by break blocks and by things that are not breaks.
const PIECES = ["\n", "\r\n", "\r", " \n  ", "\t\n", "\\n", "\\r\\n", "\\\\n", "\n\n", " ", "\\", "\\\\x", "x", "."];
const wrappedText = (data: string): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(fc.nat({ max: data.length }), fc.constantFrom(...PIECES)), { maxLength: 40 })
    .map((cuts) => {
      const at = new Map<number, string>();
      for (const [position, piece] of cuts) at.set(position, (at.get(position) ?? "") + piece);
      let out = "";
      for (let i = 0; i <= data.length; i += 1) out += (at.get(i) ?? "") + (data[i] ?? "");
      return out;
    });

describe("redactWrapped", () => {
  it("agrees with a whole-text model on forms cut by breaks at random points, long segments included", () => {
    const scenario = fc
      .tuple(fc.stringMatching(/^[A-Za-z0-9+/]{10,40}$/), fc.stringMatching(/^[A-Za-z0-9+/]{0,200}$/), fc.stringMatching(/^[A-Za-z0-9+/]{0,200}$/))
      .chain(([form, before, after]) =>
        fc.tuple(fc.constant(form), wrappedText(`${before}${form}${after}${form.slice(0, 7)}${form}`), fc.stringMatching(/^[A-Za-z0-9+/]{10,12}$/)),
      );
    fc.assert(
      fc.property(scenario, ([form, text, other]) => {
        // The literal pass runs first in production: remove whole occurrences the same way in both.
        const forms = [form, other].filter((f) => f !== "");
        const literal = forms.reduce((out, f) => out.split(f).join(REDACTED), text);
        expect(redactWrapped(literal, forms)).toBe(modelWrapped(literal, forms));
      }),
      { numRuns: 300 },
    );
  });

  it("finds the longest form cut at every position between segments far longer than it, after a long line or not", () => {
    const form = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
    const short = "QUJDREVGR0g";
    for (let k = 1; k < form.length; k += 1) {
      const cut = `${form.slice(0, k)}\n${form.slice(k)}`;
      for (const before of ["", "A".repeat(200), `${"A".repeat(200)}\n${"B".repeat(200)}`, `${"A".repeat(200)}\r\n  ${"B".repeat(40)}`]) {
        const text = `${before}${cut}${"C".repeat(200)}`;
        expect(redactWrapped(text, [form, short]), `k=${k} before=${before.length}`).toBe(modelWrapped(text, [form, short]));
        expect(redactWrapped(text, [form, short])).toContain(REDACTED);
      }
    }
  });

  it("finds a form across a single break between two segments far longer than any form", () => {
    const form = "QUJDREVGR0hJSktMTU5PUA";
    const text = `${"x".repeat(5000)}${form.slice(0, 9)}\n${form.slice(9)}${"y".repeat(5000)}`;
    expect(redactWrapped(text, [form])).toBe(`${"x".repeat(5000)}${REDACTED}${"y".repeat(5000)}`);
    const lines = `${"a".repeat(300)}\n${"b".repeat(290)}${form.slice(0, 3)}\n${form.slice(3)}${"c".repeat(300)}\n${"d".repeat(300)}`;
    expect(redactWrapped(lines, [form])).toBe(`${"a".repeat(300)}\n${"b".repeat(290)}${REDACTED}${"c".repeat(300)}\n${"d".repeat(300)}`);
  });

  it("returns the text itself when nothing is wrapped, and never joins across blanks alone or other characters", () => {
    const form = "QUJDREVGR0hJSktMTU5PUA";
    for (const text of ["", "plain", `${form.slice(0, 5)} ${form.slice(5)}`, `${form.slice(0, 5)}.\n${form.slice(5)}`, `${form.slice(0, 5)}\\x${form.slice(5)}`]) {
      expect(redactWrapped(text, [form])).toBe(text);
    }
    expect(redactWrapped("anything\nat all", [])).toBe("anything\nat all");
  });

  it("merges overlapping spans of two forms into one marker", () => {
    expect(redactWrapped("AAAABBBB\nCCCCDDDD", ["AAAABBBBCC", "BBCCCCDDDD"])).toBe(REDACTED);
  });
});

describe("isWrappable", () => {
  it.each([
    ["QUJD+/-_=", true],
    ["lit-secret-123", true],
    ["has space", false],
    ["dot.ted", false],
    ["", false],
    ["ünï", false],
  ])("%j is %s", (form, expected) => {
    expect(isWrappable(form)).toBe(expected);
  });
});
