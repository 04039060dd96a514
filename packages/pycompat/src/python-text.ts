import { CASEFOLD_EXCEPTIONS } from "./casefold-table.js";

// Python's str.isspace() set, which str.strip() and str.split() use. JavaScript's \s and String#trim differ: they
// miss U+001C..U+001F and U+0085 and include U+FEFF (a BOM is content to Python: "\ufeff".strip() == "\ufeff").
// Every member is in the BMP, so code units can be tested one by one.
const PY_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

const isSpaceUnit = (unit: number): boolean => PY_WHITESPACE.has(unit);

/** Python's `str.isspace()`: true for a non-empty string of whitespace only. Never throws. */
export function isSpacePython(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isSpaceUnit(text.charCodeAt(i))) return false;
  return true;
}

/** Python's `str.strip()` with no argument; trusts nothing about the input, never throws. */
export function stripPython(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpaceUnit(text.charCodeAt(start))) start++;
  while (end > start && isSpaceUnit(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** True when Python's `s.strip()` is empty: the original harness's "blank" (U+FEFF alone is not blank). */
export function isBlankPython(text: string): boolean {
  return stripPython(text) === "";
}

/** Python's `str.split()` with no argument: the runs of non-whitespace, in order; [] for a blank string. */
export function splitPython(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isSpaceUnit(text.charCodeAt(i));
    if (space && start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    } else if (!space && start < 0) start = i;
  }
  return out;
}

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

/** Python's `str.casefold()` (Unicode of the generating Python, see casefold-table.ts); folds per code point. */
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

/** `len(s.encode())`: UTF-8 byte length; a lone surrogate counts as the 3 bytes of U+FFFD (see hasLoneSurrogate). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when the text holds an unpaired surrogate, which Python's `.encode()` refuses. Buffer would encode it as
 * U+FFFD, so two different strings could share one byte form (one digest, one file name); callers refuse them.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
