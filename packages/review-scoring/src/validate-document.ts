import { SEVERITIES, type Severity } from "./constants.js";
import { normalizeRepoPath } from "./normalize-repo-path.js";
import { JsonNumber, parseStrictJson, type JsonObject, type JsonValue } from "./parse-strict-json.js";
import { casefoldPython, stripPython, utf8ByteLength } from "@wfbench/pycompat";
import type { ReviewParseIssue } from "./review-issue.js";

/** Rule names shared by both documents; each becomes `<prefix>_<rule>`. */
export type SharedRule =
  | "TOO_LARGE"
  | "EMPTY"
  | "NOT_UTF8"
  | "NOT_JSON"
  | "DUPLICATE_KEY"
  | "NOT_OBJECT"
  | "TOP_LEVEL_KEYS"
  | "SCHEMA_VERSION"
  | "FINDINGS_NOT_LIST"
  | "FINDING_NOT_OBJECT"
  | "FINDING_KEYS"
  | "NOT_STRING"
  | "BLANK"
  | "TOO_LONG"
  | "SEVERITY"
  | "PATH_NOT_RELATIVE"
  | "LINE_NOT_POSITIVE_INT"
  | "LINE_RANGE"
  | "DUPLICATE_ID";

/** Thrown inside a validation pass to stop at the first refusal; never escapes the parser. */
export class FirstIssue {
  constructor(readonly issue: ReviewParseIssue<string>) {}
}

const ECHO_LIMIT = 80;

/** Short, bounded rendering of a JSON value for messages; never echoes more than ~80 characters. */
export function describeJson(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (value instanceof JsonNumber) return `the number ${truncate(value.raw)}`;
  if (typeof value === "string") return `the string ${JSON.stringify(truncate(value))}`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return "an object";
}

function truncate(text: string): string {
  return text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text;
}

/** Validation context for one document: the subject named in messages and the code prefix. */
export class DocumentValidator {
  constructor(
    private readonly subject: string,
    private readonly prefix: "REVIEW_OUTPUT" | "REVIEW_LABELS",
  ) {}

  fail(rule: string, message: string, extra: Omit<ReviewParseIssue<string>, "code" | "message"> = {}): never {
    throw new FirstIssue({ code: `${this.prefix}_${rule}`, message: `${this.subject} ${message}`, ...extra });
  }

  /** Size, UTF-8 and JSON checks on raw bytes; returns the parsed tree. */
  decode(bytes: Uint8Array, maxBytes: number): JsonValue {
    if (bytes.byteLength > maxBytes) {
      this.fail("TOO_LARGE", `is larger than ${maxBytes} bytes (got ${bytes.byteLength}); keep it under the limit`);
    }
    if (bytes.byteLength === 0) this.fail("EMPTY", "is empty; write one JSON object");
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      this.fail("NOT_UTF8", "is not valid UTF-8; write the file as UTF-8 text");
    }
    const parsed = parseStrictJson(text);
    if (!parsed.ok) {
      const { kind, message, line, column } = parsed.error;
      this.fail(
        kind === "duplicate-key" ? "DUPLICATE_KEY" : "NOT_JSON",
        `is not valid JSON: ${message} at line ${line} column ${column}`,
        { line, column },
      );
    }
    return parsed.value;
  }

  /** Requires an object with exactly `keys`; names missing and unexpected keys. */
  exactObject(value: JsonValue | undefined, keys: readonly string[], pointer: string, what: string, notObject: string, wrongKeys: string): JsonObject {
    if (!(value instanceof Map)) {
      this.fail(notObject, `${what} must be a JSON object, got ${describeJson(value)}`, pointerField(pointer));
    }
    const missing = keys.filter((key) => !value.has(key));
    const extra = [...value.keys()].filter((key) => !keys.includes(key));
    if (missing.length > 0 || extra.length > 0) {
      const parts: string[] = [];
      if (missing.length > 0) parts.push(`missing ${missing.map((k) => JSON.stringify(k)).join(", ")}`);
      if (extra.length > 0) parts.push(`unexpected ${extra.slice(0, 5).map((k) => JSON.stringify(truncate(k))).join(", ")}`);
      this.fail(wrongKeys, `${what} must have exactly the keys ${keys.join(", ")} (${parts.join("; ")})`, pointerField(pointer));
    }
    return value;
  }

  schemaVersion(value: JsonValue | undefined, expected: number): void {
    if (!(value instanceof JsonNumber) || value.toSafeInteger() !== expected) {
      this.fail("SCHEMA_VERSION", `schema_version must be the integer ${expected}, got ${describeJson(value)}`, {
        pointer: "/schema_version",
      });
    }
  }

  /** Nonblank string of at most `limit` UTF-8 bytes after Python-style stripping; returns it stripped. */
  text(value: JsonValue | undefined, limit: number, pointer: string, where: string): string {
    if (typeof value !== "string") this.fail("NOT_STRING", `${where} must be a string, got ${describeJson(value)}`, { pointer });
    const stripped = stripPython(value);
    if (stripped.length === 0) this.fail("BLANK", `${where} must not be blank`, { pointer });
    const bytes = utf8ByteLength(stripped);
    if (bytes > limit) {
      this.fail("TOO_LONG", `${where} must be at most ${limit} UTF-8 bytes, got ${bytes}; shorten it`, { pointer });
    }
    return stripped;
  }

  severity(value: JsonValue | undefined, pointer: string, where: string): Severity {
    const folded = typeof value === "string" ? casefoldPython(stripPython(value)) : undefined;
    const match = SEVERITIES.find((severity) => severity === folded);
    if (match === undefined) {
      this.fail("SEVERITY", `${where} must be one of ${SEVERITIES.join(", ")}, got ${describeJson(value)}`, { pointer });
    }
    return match;
  }

  category(value: JsonValue | undefined, limit: number, pointer: string, where: string): string {
    return casefoldPython(this.text(value, limit, pointer, where));
  }

  path(value: JsonValue | undefined, limit: number, pointer: string, where: string): string {
    const raw = this.text(value, limit, pointer, where);
    const normalized = normalizeRepoPath(raw);
    if (!normalized.ok) {
      this.fail(
        "PATH_NOT_RELATIVE",
        `${where} must be a repository-relative path (no leading '/', not '.', no '..' escape), got ${JSON.stringify(truncate(raw))} which normalises to ${JSON.stringify(truncate(normalized.normalized))}`,
        { pointer },
      );
    }
    return normalized.path;
  }

  /** Positive integer; refuses booleans, floats such as 5.0, and integers beyond 2^53 - 1. */
  positiveInt(value: JsonValue | undefined, pointer: string, where: string): number {
    const int = value instanceof JsonNumber ? value.toSafeInteger() : undefined;
    if (int === undefined || int < 1) {
      this.fail(
        "LINE_NOT_POSITIVE_INT",
        `${where} must be a positive integer (at most ${Number.MAX_SAFE_INTEGER}), got ${describeJson(value)}`,
        { pointer },
      );
    }
    return int;
  }

  lineRange(start: number, end: number, pointer: string, where: string, startName: string, endName: string): void {
    if (end < start) {
      this.fail("LINE_RANGE", `${where} has ${endName} ${end} before ${startName} ${start}; ${endName} must be >= ${startName}`, {
        pointer,
      });
    }
  }

  uniqueIds(ids: readonly string[], where: (index: number) => string): void {
    const seen = new Map<string, number>();
    ids.forEach((id, index) => {
      const first = seen.get(id);
      if (first !== undefined) {
        this.fail("DUPLICATE_ID", `${where(index)} repeats id ${JSON.stringify(truncate(id))} already used by ${where(first)}; ids must be unique`, {
          pointer: `/findings/${index}/id`,
        });
      }
      seen.set(id, index);
    });
  }
}

function pointerField(pointer: string): { pointer?: string } {
  return pointer === "" ? {} : { pointer };
}
