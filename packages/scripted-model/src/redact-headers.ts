import type { IncomingHttpHeaders } from "node:http";

/** The value written in place of a secret header. */
export const REDACTED = "[redacted]";

// A header value that is itself a credential ("Bearer …", "Basic …"), whatever the header is called.
const AUTH_SCHEME_VALUE = /^\s*(bearer|basic|digest|token)\s+\S/i;

// Names are matched loosely on purpose: a new credential header must be hidden before anyone thinks to list it.
const SECRET_HEADER_NAME = /key|auth|cookie|token|secret|passw|credential|signature/i;

// Credentials recognisable by their shape wherever they appear (spec: redaction of keys, tokens, bearer values and
// URL userinfo), so a custom header or a prompt cannot carry one into the log under an innocent name.
const SECRET_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/sk-ant-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/gh[pousr]_[A-Za-z0-9_]{8,}/g, REDACTED],
  [/\b(authorization\s*[:=]\s*(?:(?:bearer|basic)\s+)?)(?!\[redacted\])[^\s,;]+/gi, `$1${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, `$1${REDACTED}@`],
];

/** True for header names whose values must never reach a log (x-api-key, authorization, cookies, tokens, …). */
export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/** Replaces credential-shaped substrings (sk-ant- keys, GitHub tokens, bearer/basic values, URL userinfo); trusts nothing in `text`. */
export function redactSecretText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_SHAPES) out = out.replace(pattern, replacement);
  return out;
}

/** Copies headers with lower-cased names, sorted, secret values replaced; multi-valued headers are joined. */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = Array.isArray(value) ? value.join(", ") : value;
    const scheme = AUTH_SCHEME_VALUE.exec(joined)?.[1];
    if (isSecretHeaderName(lower)) out[lower] = REDACTED;
    else if (scheme !== undefined) out[lower] = `${scheme} ${REDACTED}`;
    else out[lower] = redactSecretText(joined);
  }
  return out;
}
