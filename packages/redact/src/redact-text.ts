import { REDACTED } from "./marker.js";
import { isWrappable, redactWrapped } from "./redact-wrapped.js";

export { REDACTED };

/**
 * Secrets shorter than this are never searched for. A 1-3 character "secret" (a placeholder key such as "k") would
 * match ordinary text by chance and rewrite proxied replies and evidence alike, while being guessable anyway.
 */
export const MIN_SECRET_CHARS = 4;

// Encoded forms shorter than this are not added: they could match by chance.
const MIN_ENCODED_SECRET_CHARS = 10;

const ANTHROPIC_KEY = /sk-ant-[A-Za-z0-9_-]{8,}/g;
const GITHUB_TOKEN = /gh[pousr]_[A-Za-z0-9_]{8,}/g;
// The optional scheme word stays in the prefix: `Basic <b64>` or `token <t>` would otherwise lose only the scheme
// word and keep the credential itself.
const AUTHORIZATION_VALUE = /(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm)\s+)?)[^\s"',;]+/gi;
// A bearer credential separated from its header name (e.g. a `["Authorization", "Bearer …"]` pair).
const BEARER_VALUE = /\b(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi;
const AUTHORIZATION_HINT = /authorization/i;
const BEARER_HINT = /bearer/i;
// Userinfo with or without a password (`https://<token>@host` is how git carries tokens); greedy up to the last `@`
// before the path, so a raw `@` inside the password cannot end the match early and leak the rest.
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#"<>`]*@/g;

/** A redactor with its secrets prepared once (literals and their base64 forms, longest first, whole or wrapped). */
export type TextRedactor = (text: string) => string;

/**
 * Redacts one string with the whole rule set: the known secrets (and their base64 / base64url forms, also wrapped
 * across lines as `base64`, MIME and PEM print them), `sk-ant-…` keys, `gh?_…` tokens, authorization values (prefix
 * and scheme kept), bearer credentials and URL userinfo. Trusts nothing in the text; secrets under MIN_SECRET_CHARS
 * are ignored. A secret split across two strings is not found.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  return createTextRedactor(secrets)(text);
}

/** {@link redactText} with the secrets prepared once, for redacting many strings with the same secrets. */
export function createTextRedactor(secrets: readonly (string | undefined)[]): TextRedactor {
  const prepared = prepareSecrets(secrets);
  return (text) => redactShapes(redactLiterals(text, prepared));
}

/**
 * Replaces only the known secrets and their base64 forms (wrapped across lines or not), leaving every other byte
 * alone: for text that is passed on rather than logged (a proxied reply must stay byte for byte unless it carries a
 * key). Same secret rules as {@link redactText}.
 */
export function redactKnownSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  return redactLiterals(text, prepareSecrets(secrets));
}

interface PreparedSecrets {
  /** Every form, longest first: replaced wherever it occurs whole. */
  readonly literals: readonly string[];
  /** The forms also searched for across line breaks: every encoded form, and a literal of base64 characters only. */
  readonly wrappable: readonly string[];
}

// Longest first, so a secret that contains another is replaced whole. Each secret also stands for its base64 and
// base64url encodings (a Basic credential, a data blob), at the three byte alignments it can have inside a longer
// encoded run: only the characters that depend on the secret's bytes alone are kept. Forms of at least
// MIN_ENCODED_SECRET_CHARS base64 characters are also found wrapped across lines (`base64` / MIME / PEM output).
function prepareSecrets(secrets: readonly (string | undefined)[]): PreparedSecrets {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_CHARS) continue;
    forms.add(secret);
    for (const encoded of encodeSecret(secret)) forms.add(encoded);
  }
  const literals = [...forms].sort((a, b) => b.length - a.length);
  return { literals, wrappable: literals.filter((form) => form.length >= MIN_ENCODED_SECRET_CHARS && isWrappable(form)) };
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

// Whole forms first, exactly as before wrapped forms were searched for; then the forms that straddle a line break.
function redactLiterals(text: string, prepared: PreparedSecrets): string {
  let out = text;
  for (const secret of prepared.literals) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return redactWrapped(out, prepared.wrappable);
}

function redactShapes(text: string): string {
  let out = text;
  // The substring checks skip the regex scans for the (vast) majority of strings that cannot match.
  if (out.includes("sk-ant-")) out = out.replace(ANTHROPIC_KEY, REDACTED);
  if (out.includes("gh")) out = out.replace(GITHUB_TOKEN, REDACTED);
  if (AUTHORIZATION_HINT.test(out)) out = out.replace(AUTHORIZATION_VALUE, `$1${REDACTED}`);
  if (BEARER_HINT.test(out)) out = out.replace(BEARER_VALUE, `$1${REDACTED}`);
  if (out.includes("://")) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
  return out;
}
