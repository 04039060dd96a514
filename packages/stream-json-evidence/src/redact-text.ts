import { casefoldPython } from "@wfbench/pycompat";
import { REDACTED, SENSITIVE_KEYS, createTextRedactor, type TextRedactor } from "@wfbench/redact";
import { isJsonObject, type JsonValue } from "./schema.js";

// The text rules and the marker are @wfbench/redact's; this module adds the structure of JSON on top: keys are
// redacted like strings, sensitive keys lose their whole value, and a collision of two keys is refused.

/** True when a key's value must be replaced whatever it holds (Python casefold, so `PAẞWORD` is `password`). */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.has(casefoldPython(key));
}

/** Raised inside structural redaction when two keys of one object become the same key. */
export class RedactionCollision {
  constructor(readonly key: string) {}
}

/**
 * Redacts every key and string of a JSON value with @wfbench/redact's text rules; sensitive keys get `[REDACTED]`
 * values. Refuses (returns a RedactionCollision) when two keys of one object collide after redaction, since one value
 * would silently vanish.
 */
export function redactJson(value: JsonValue, secrets: readonly string[] = []): JsonValue | RedactionCollision {
  return createJsonRedactor(secrets)(value);
}

/** Prepares the secrets once and memoises key redaction, for redacting many values with the same secrets. */
export function createJsonRedactor(secrets: readonly string[]): (value: JsonValue) => JsonValue | RedactionCollision {
  const redactString = createTextRedactor(secrets);
  const keys = new Map<string, RedactedKey>();
  const redactKey = (key: string): RedactedKey => {
    const known = keys.get(key);
    if (known !== undefined) return known;
    const redacted = { key: redactString(key), sensitive: isSensitiveKey(key) };
    if (keys.size < MAX_MEMOISED_KEYS) keys.set(key, redacted);
    return redacted;
  };
  const walk = (value: JsonValue): JsonValue | RedactionCollision => redactValue(value, redactString, redactKey, walk);
  return walk;
}

const MAX_MEMOISED_KEYS = 50_000;

interface RedactedKey {
  readonly key: string;
  readonly sensitive: boolean;
}

function redactValue(
  value: JsonValue,
  redactString: TextRedactor,
  redactKey: (key: string) => RedactedKey,
  walk: (value: JsonValue) => JsonValue | RedactionCollision,
): JsonValue | RedactionCollision {
  if (typeof value === "string") return redactString(value);
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
