import { foldCase } from "./content-blocks.js";
import { isJsonObject, type JsonValue } from "./schema.js";

/** The marker every redacted value becomes. */
export const REDACTED = "[REDACTED]";

/** Keys whose values are always replaced, compared case-folded. */
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

const ANTHROPIC_KEY = /sk-ant-[A-Za-z0-9_-]{8,}/g;
const GITHUB_TOKEN = /gh[pousr]_[A-Za-z0-9_]{8,}/g;
// The spec keeps an optional "bearer " in the prefix; other schemes are kept the same way, because `Basic <b64>` or
// `token <t>` would otherwise redact only the scheme word and leave the credential itself.
const AUTHORIZATION_VALUE = /(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm)\s+)?)[^\s"',;]+/gi;
// A bearer credential separated from its header name (e.g. a `["Authorization", "Bearer …"]` pair).
const BEARER_VALUE = /\b(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi;
const AUTHORIZATION_HINT = /authorization/i;
const BEARER_HINT = /bearer/i;
// Userinfo with or without a password (`https://<token>@host` is how git carries tokens); greedy up to the last `@`
// before the path so a raw `@` inside the password cannot end the match early.
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#"<>`]*@/g;
// Encoded forms shorter than this are not added: they could match by chance.
const MIN_ENCODED_SECRET_CHARS = 10;

/**
 * Redacts one string: the literal secrets handed in (and their base64 / base64url forms), `sk-ant-…` keys, `gh?_…`
 * tokens, authorization values (prefix and scheme kept), bearer credentials and URL userinfo. Trusts nothing in the
 * text; empty secrets are ignored because they would match everywhere. A secret split across two strings is not found.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return redactWith(text, prepareSecrets(secrets));
}

// Longest first, so a secret that contains another is replaced whole. Each secret also stands for its base64 and
// base64url encodings (a Basic credential, a data blob), at the three byte alignments it can have inside a longer
// encoded run: only the characters that depend on the secret's bytes alone are kept.
function prepareSecrets(secrets: readonly string[]): readonly string[] {
  const literals = new Set<string>();
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    literals.add(secret);
    for (const encoded of encodeSecret(secret)) literals.add(encoded);
  }
  return [...literals].sort((a, b) => b.length - a.length);
}

function encodeSecret(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const standard = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const start = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const fragment = standard.slice(start, end);
    if (fragment.length < MIN_ENCODED_SECRET_CHARS) continue;
    out.push(fragment, fragment.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}

function redactWith(text: string, literals: readonly string[]): string {
  let out = text;
  for (const secret of literals) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  // The substring checks skip the regex scans for the (vast) majority of strings that cannot match.
  if (out.includes("sk-ant-")) out = out.replace(ANTHROPIC_KEY, REDACTED);
  if (out.includes("gh")) out = out.replace(GITHUB_TOKEN, REDACTED);
  if (AUTHORIZATION_HINT.test(out)) out = out.replace(AUTHORIZATION_VALUE, `$1${REDACTED}`);
  if (BEARER_HINT.test(out)) out = out.replace(BEARER_VALUE, `$1${REDACTED}`);
  if (out.includes("://")) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  return out;
}

/** True when a key's value must be replaced whatever it holds. */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.has(foldCase(key));
}

/** Raised inside structural redaction when two keys of one object become the same key. */
export class RedactionCollision {
  constructor(readonly key: string) {}
}

/**
 * Redacts every key and string of a JSON value; sensitive keys get `[REDACTED]` values. Refuses (returns a
 * RedactionCollision) when two keys of one object collide after redaction, since one value would silently vanish.
 */
export function redactJson(value: JsonValue, secrets: readonly string[] = []): JsonValue | RedactionCollision {
  return createJsonRedactor(secrets)(value);
}

/** Prepares the secrets once and memoises key redaction, for redacting many values with the same secrets. */
export function createJsonRedactor(secrets: readonly string[]): (value: JsonValue) => JsonValue | RedactionCollision {
  const literals = prepareSecrets(secrets);
  const keys = new Map<string, RedactedKey>();
  const redactKey = (key: string): RedactedKey => {
    const known = keys.get(key);
    if (known !== undefined) return known;
    const redacted = { key: redactWith(key, literals), sensitive: isSensitiveKey(key) };
    if (keys.size < MAX_MEMOISED_KEYS) keys.set(key, redacted);
    return redacted;
  };
  const walk = (value: JsonValue): JsonValue | RedactionCollision => redactValue(value, literals, redactKey, walk);
  return walk;
}

const MAX_MEMOISED_KEYS = 50_000;

interface RedactedKey {
  readonly key: string;
  readonly sensitive: boolean;
}

function redactValue(
  value: JsonValue,
  literals: readonly string[],
  redactKey: (key: string) => RedactedKey,
  walk: (value: JsonValue) => JsonValue | RedactionCollision,
): JsonValue | RedactionCollision {
  if (typeof value === "string") return redactWith(value, literals);
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const redacted = walk(item);
      if (redacted instanceof RedactionCollision) return redacted;
      items.push(redacted);
    }
    return items;
  }
  if (isJsonObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const { key: newKey, sensitive } = redactKey(key);
      if (Object.hasOwn(out, newKey)) return new RedactionCollision(newKey);
      const redacted = sensitive ? REDACTED : walk(value[key] ?? null);
      if (redacted instanceof RedactionCollision) return redacted;
      // A "__proto__" key must stay data, not become the prototype.
      if (newKey === "__proto__") Object.defineProperty(out, newKey, { value: redacted, enumerable: true, writable: true, configurable: true });
      else out[newKey] = redacted;
    }
    return out;
  }
  return value;
}
