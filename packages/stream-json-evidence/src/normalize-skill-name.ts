import { PYTHON_SPACE_CLASS } from "./schema.js";

const PYTHON_SPACE = new RegExp(`[${PYTHON_SPACE_CLASS}]+`, "u");
const LEADING_SPACE = new RegExp(`^[${PYTHON_SPACE_CLASS}]+`, "u");

/**
 * Normalises a skill reference the way the evidence rules compare them: trim, first whitespace token, drop one
 * leading `/`, keep the text after the last `:`. Trusts nothing about the input; returns "" when nothing is left.
 */
export function normalizeSkillName(value: string): string {
  const token = value.replace(LEADING_SPACE, "").split(PYTHON_SPACE)[0] ?? "";
  const unslashed = token.startsWith("/") ? token.slice(1) : token;
  const colon = unslashed.lastIndexOf(":");
  return colon === -1 ? unslashed : unslashed.slice(colon + 1);
}
