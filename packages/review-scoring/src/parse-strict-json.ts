/** A JSON number kept with its source text, so integers and floats stay distinguishable (5 vs 5.0). */
export class JsonNumber {
  constructor(
    readonly raw: string,
    readonly isInteger: boolean,
  ) {}

  /** The value as a safe integer, or undefined when it is a float or too large to hold exactly. */
  toSafeInteger(): number | undefined {
    if (!this.isInteger) return undefined;
    const value = Number(this.raw);
    return Number.isSafeInteger(value) ? value : undefined;
  }
}

/** A parsed JSON value; objects are Maps so keys such as `__proto__` stay plain data. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** A parsed JSON object, keys in source order. */
export type JsonObject = Map<string, JsonValue>;

/** Why a text is not acceptable JSON, with its 1-based position. */
export interface JsonSyntaxIssue {
  kind: "syntax" | "duplicate-key";
  message: string;
  line: number;
  column: number;
}

/** Deepest nesting accepted; the legitimate files nest three levels. */
export const MAX_JSON_DEPTH = 64;

class SyntaxFailure {
  constructor(
    readonly kind: JsonSyntaxIssue["kind"],
    readonly message: string,
    readonly offset: number,
  ) {}
}

const NUMBER_PATTERN = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/**
 * Strict RFC 8259 parser: no NaN/Infinity, no BOM, no duplicate keys, no lone surrogate escapes, bounded depth.
 * Trusts nothing in the text; never throws for bad input (returns the first problem with line and column).
 */
export function parseStrictJson(
  text: string,
): { ok: true; value: JsonValue } | { ok: false; error: JsonSyntaxIssue } {
  const parser = new StrictJsonParser(text);
  try {
    return { ok: true, value: parser.parseDocument() };
  } catch (failure) {
    if (!(failure instanceof SyntaxFailure)) throw failure;
    const { line, column } = locate(text, failure.offset);
    return { ok: false, error: { kind: failure.kind, message: failure.message, line, column } };
  }
}

function locate(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class StrictJsonParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    if (this.text.charCodeAt(0) === 0xfeff) {
      throw new SyntaxFailure("syntax", "unexpected UTF-8 byte order mark", 0);
    }
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) throw new SyntaxFailure("syntax", "extra data after the JSON value", this.pos);
    return value;
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const c = text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.pos++;
    }
  }

  private parseValue(depth: number): JsonValue {
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.parseObject(depth + 1);
      case "[":
        return this.parseArray(depth + 1);
      case '"':
        return this.parseString();
      case "t":
        return this.parseLiteral("true", true);
      case "f":
        return this.parseLiteral("false", false);
      case "n":
        return this.parseLiteral("null", null);
      default:
        return this.parseNumber();
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) throw new SyntaxFailure("syntax", "expecting a value", this.pos);
    this.pos += word.length;
    return value;
  }

  private parseNumber(): JsonNumber {
    NUMBER_PATTERN.lastIndex = this.pos;
    const match = NUMBER_PATTERN.exec(this.text);
    if (match === null) throw new SyntaxFailure("syntax", "expecting a value", this.pos);
    this.pos += match[0].length;
    return new JsonNumber(match[0], match[1] === undefined && match[2] === undefined);
  }

  private enter(depth: number): void {
    if (depth > MAX_JSON_DEPTH) {
      throw new SyntaxFailure("syntax", `nesting deeper than ${MAX_JSON_DEPTH} levels`, this.pos);
    }
    this.pos++;
    this.skipWhitespace();
  }

  private parseArray(depth: number): JsonValue[] {
    this.enter(depth);
    const items: JsonValue[] = [];
    if (this.text[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text[this.pos];
      if (c === "]") {
        this.pos++;
        return items;
      }
      if (c !== ",") throw new SyntaxFailure("syntax", "expecting ',' or ']' in an array", this.pos);
      this.pos++;
      this.skipWhitespace();
    }
  }

  private parseObject(depth: number): JsonObject {
    this.enter(depth);
    const entries: JsonObject = new Map();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return entries;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') {
        throw new SyntaxFailure("syntax", "expecting a property name in double quotes", this.pos);
      }
      const keyOffset = this.pos;
      const key = this.parseString();
      if (entries.has(key)) {
        throw new SyntaxFailure("duplicate-key", `duplicate key ${JSON.stringify(key.slice(0, 80))}`, keyOffset);
      }
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") throw new SyntaxFailure("syntax", "expecting ':' after a property name", this.pos);
      this.pos++;
      this.skipWhitespace();
      entries.set(key, this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text[this.pos];
      if (c === "}") {
        this.pos++;
        return entries;
      }
      if (c !== ",") throw new SyntaxFailure("syntax", "expecting ',' or '}' in an object", this.pos);
      this.pos++;
      this.skipWhitespace();
    }
  }

  private parseString(): string {
    const start = this.pos;
    const text = this.text;
    this.pos++;
    let out = "";
    let chunkStart = this.pos;
    for (;;) {
      if (this.pos >= text.length) throw new SyntaxFailure("syntax", "unterminated string", start);
      const c = text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += text.slice(chunkStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) throw new SyntaxFailure("syntax", "invalid control character in a string", this.pos);
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += text.slice(chunkStart, this.pos);
      out += this.parseEscape();
      chunkStart = this.pos;
    }
  }

  private parseEscape(): string {
    const text = this.text;
    const escapeStart = this.pos;
    const c = text[this.pos + 1];
    this.pos += 2;
    switch (c) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const high = this.readHex4(escapeStart);
        if (high < 0xd800 || high > 0xdfff) return String.fromCharCode(high);
        // Lone surrogates cannot be encoded as UTF-8, so they are refused here rather than mangled later.
        if (high <= 0xdbff && text.startsWith("\\u", this.pos)) {
          const low = this.readHex4(this.pos, 2);
          if (low >= 0xdc00 && low <= 0xdfff) return String.fromCharCode(high, low);
        }
        throw new SyntaxFailure("syntax", "unpaired surrogate in a \\u escape", escapeStart);
      }
      default:
        throw new SyntaxFailure("syntax", "invalid escape in a string", escapeStart);
    }
  }

  private readHex4(escapeStart: number, skip = 0): number {
    const from = this.pos + skip;
    const hex = this.text.slice(from, from + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new SyntaxFailure("syntax", "invalid \\uXXXX escape", escapeStart);
    this.pos = from + 4;
    return Number.parseInt(hex, 16);
  }
}
