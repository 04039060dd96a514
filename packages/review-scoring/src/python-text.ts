import { CASEFOLD_EXCEPTIONS } from "./casefold-table.js";

// Python's str.isspace() set: str.strip() removes exactly these, which differs from String#trim
// (Python also strips U+001C..U+001F and U+0085; JavaScript also strips U+FEFF).
const PY_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

let foldTable: Map<number, string> | undefined;

function loadFoldTable(): Map<number, string> {
  if (foldTable !== undefined) return foldTable;
  const table = new Map<number, string>();
  for (const entry of CASEFOLD_EXCEPTIONS.split(",")) {
    const [from, to] = entry.split(":");
    if (from === undefined || to === undefined) continue;
    table.set(
      Number.parseInt(from, 36),
      String.fromCodePoint(...to.split(".").map((part) => Number.parseInt(part, 36))),
    );
  }
  foldTable = table;
  return table;
}

/** Python's str.strip() with no argument; trusts nothing about the input, never throws. */
export function stripPython(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PY_WHITESPACE.has(text.charCodeAt(start))) start++;
  while (end > start && PY_WHITESPACE.has(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** Python's str.casefold() (Unicode of the generating Python); refuses nothing, folds per code point. */
export function casefoldPython(text: string): string {
  // ASCII needs no table, and per-code-point folding avoids toLowerCase's final-sigma context rule.
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  const table = loadFoldTable();
  let out = "";
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    out += table.get(cp) ?? char.toLowerCase();
  }
  return out;
}

/** UTF-8 byte length of a string; lone surrogates count as the 3 bytes of U+FFFD. */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Orders strings by Unicode code point like Python (not by UTF-16 code unit); returns <0, 0 or >0. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // At the first differing unit, lifting surrogates above U+E000..U+FFFF yields code-point order.
    return fixupSurrogate(x) - fixupSurrogate(y);
  }
  return a.length - b.length;
}

function fixupSurrogate(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
