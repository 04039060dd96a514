import type { IncomingHttpHeaders } from "node:http";

/** The value written in place of a secret header. */
export const REDACTED = "[redacted]";

// Names are matched loosely on purpose: a new credential header must be hidden before anyone thinks to list it.
const SECRET_HEADER_NAME = /key|auth|cookie|token|secret|passw|credential|signature/i;

/** True for header names whose values must never reach a log (x-api-key, authorization, cookies, tokens, …). */
export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/** Copies headers with lower-cased names, sorted, secret values replaced; multi-valued headers are joined. */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = isSecretHeaderName(lower) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
