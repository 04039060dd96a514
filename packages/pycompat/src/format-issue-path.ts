/** What an empty path is called: the whole document or value under validation. */
export const ROOT_FIELD = "(root)";

/**
 * Renders a zod (or yaml) issue path as the field name a refusal shows: `files[0].source`, or `oracle.files[0]` under
 * `prefix`. The empty path with no prefix is "(root)". Trusts nothing; symbols print as String(symbol).
 */
export function formatIssuePath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  return out === "" ? ROOT_FIELD : out;
}
