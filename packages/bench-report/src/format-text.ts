import { formatFixed as formatFixedPython } from "@wfbench/pycompat";

/**
 * A figure as report.md prints it: Python's `"%.{digits}f" % value` (@wfbench/pycompat's formatFixed: exact ties to
 * even, every digit of a huge value), except that a value rounding to zero prints without a sign (Python writes -0.0,
 * which a savings column would show for a 0.04% regression).
 */
export function formatFixed(value: number, digits: number): string {
  const text = formatFixedPython(value, digits);
  return /^-0(?:\.0*)?$/.test(text) ? text.slice(1) : text;
}

const LINE_BREAK = /\r\n|\r|\n/g;

/** The text on one Markdown line: each line break (CR, LF or CRLF) becomes ` ⏎ `, as the live lines print it. */
export function flattenLines(text: string): string {
  return text.replace(LINE_BREAK, " \u23ce ");
}
/** What CommonMark would read as markup in running text or a GFM table cell: escaped with a backslash. */
const MARKDOWN_ACTIVE = /[\\|`*[\]<>]/g;

/**
 * A string from a row, a task file or the command line, made safe as running Markdown text or one GFM table cell: a
 * line break becomes ` ⏎ ` (as the live lines print it) so it cannot end the row, and `\ | \` * [ ] < >` are
 * backslash-escaped so it cannot split a cell, open a code span, emphasis, a link or an HTML tag. Renders as the
 * original text.
 */
export function markdownText(text: string): string {
  return flattenLines(text).replace(MARKDOWN_ACTIVE, (c) => `\\${c}`);
}

/**
 * A string shown as an inline code span (CommonMark): fenced with one backtick more than its longest backtick run and
 * padded with a space where the span would otherwise lose or misread its edges; line breaks become ` ⏎ `. Not for a
 * table cell (a `|` inside would still split it).
 */
export function markdownCode(text: string): string {
  const flat = flattenLines(text);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || (flat.startsWith(" ") && flat.endsWith(" ") && flat.trim() !== "") || flat === "" ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}
