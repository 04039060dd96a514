/**
 * Normalises a skill reference the way the evidence rules compare them: trim, first whitespace token, drop one
 * leading `/`, keep the text after the last `:`. Trusts nothing about the input; returns "" when nothing is left.
 */
export function normalizeSkillName(value: string): string {
  const token = value.trim().split(/\s+/u)[0] ?? "";
  const unslashed = token.startsWith("/") ? token.slice(1) : token;
  const colon = unslashed.lastIndexOf(":");
  return colon === -1 ? unslashed : unslashed.slice(colon + 1);
}
