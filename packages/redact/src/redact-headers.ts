import { REDACTED, createTextRedactor } from "./redact-text.js";

/**
 * JSON keys whose values are always replaced, in case-folded form (callers fold with Python's casefold). Exact names,
 * unlike header names: a transcript's `input_tokens` or `auth` must stay readable.
 */
export const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "api_key",
  "anthropic-api-key",
  "anthropic_api_key",
  "token",
  "access_token",
  "refresh_token",
  "secret",
  "client_secret",
  "cookie",
  "set-cookie",
  "password",
]);

// Header names are matched loosely on purpose: a new credential header must be hidden before anyone thinks to list it.
const SECRET_HEADER_NAME = /key|auth|cookie|token|secret|passw|credential|signature/i;
// A header value that is itself a credential ("Bearer …", "Basic …"), whatever the header is called.
const AUTH_SCHEME_VALUE = /^\s*(bearer|basic|digest|token)\s+\S/i;

/** True for header names whose values never reach a log (x-api-key, authorization, cookies, tokens, signatures, …). */
export function isSensitiveHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/**
 * Copies headers for a log: names lower-cased and sorted, multi-valued headers joined with ", ", the value of a
 * sensitive header name replaced whole, a credential-scheme value reduced to its scheme, every other value through
 * the full text rule set (with `secrets`). Trusts nothing in the headers.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  secrets: readonly (string | undefined)[] = [],
): Record<string, string> {
  const redact = createTextRedactor(secrets);
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = typeof value === "string" ? value : value.join(", ");
    const scheme = AUTH_SCHEME_VALUE.exec(joined)?.[1];
    if (isSensitiveHeaderName(lower)) out[lower] = REDACTED;
    else if (scheme !== undefined) out[lower] = `${scheme} ${REDACTED}`;
    else out[lower] = redact(joined);
  }
  return out;
}
