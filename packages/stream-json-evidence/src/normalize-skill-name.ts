import { splitPython } from "@wfbench/pycompat";

/**
 * Normalises a skill reference the way the evidence rules compare them: the first whitespace token (Python's
 * `str.split()[0]`), one leading `/` dropped, the text after the last `:` kept. Trusts nothing about the input;
 * returns "" when nothing is left.
 */
export function normalizeSkillName(value: string): string {
  const token = splitPython(value)[0] ?? "";
  const unslashed = token.startsWith("/") ? token.slice(1) : token;
  const colon = unslashed.lastIndexOf(":");
  return colon === -1 ? unslashed : unslashed.slice(colon + 1);
}
