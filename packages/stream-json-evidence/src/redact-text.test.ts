import { describe, expect, it } from "vitest";
import { REDACTED } from "@wfbench/redact";
import { RedactionCollision, isSensitiveKey, redactJson } from "./redact-text.js";

describe("redactJson", () => {
  it("redacts keys and strings at any depth and blanks sensitive keys", () => {
    const redacted = redactJson({
      Authorization: { nested: "x" },
      "X-API-KEY": 42,
      list: ["sk-ant-api03-abcdefgh", { Password: "hunter2" }],
      "sk-ant-api03-keykeykey": true,
      n: 1.5,
    });
    expect(redacted).toEqual({ Authorization: REDACTED, "X-API-KEY": REDACTED, list: [REDACTED, { Password: REDACTED }], [REDACTED]: true, n: 1.5 });
  });

  it("refuses two keys that collide after redaction", () => {
    const collision = redactJson({ "sk-ant-api03-aaaaaaaa": 1, "sk-ant-api03-bbbbbbbb": 2 });
    expect(collision).toBeInstanceOf(RedactionCollision);
    expect(redactJson([{ a: { "lit-one": 1, "lit-two": 2 } }], ["lit-one", "lit-two"])).toBeInstanceOf(RedactionCollision);
  });

  it("keeps a __proto__ key as data", () => {
    const value = redactJson(JSON.parse('{"__proto__":{"polluted":"sk-ant-api03-abcdefgh"}}'));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"polluted":"[REDACTED]"}}');
  });

  it.each(["authorization", "Proxy-Authorization", "API_KEY", "anthropic-api-key", "TOKEN", "Set-Cookie", "client_secret", "refresh_token"])(
    "treats %s as sensitive",
    (key) => expect(isSensitiveKey(key)).toBe(true),
  );

  it.each(["tokens", "input_tokens", "secret_name", "auth"])("does not treat %s as sensitive", (key) => expect(isSensitiveKey(key)).toBe(false));
});

describe("structural redaction on top of @wfbench/redact", () => {
  it("redacts strings with the text rules, a raw @ inside a URL password included", () => {
    expect(redactJson({ url: "https://user:p@ss@host/x", list: ["Bearer abcdefghijkl"] })).toEqual({ url: "https://[REDACTED]@host/x", list: ["Bearer [REDACTED]"] });
  });

  it("blanks a sensitive key whose case-fold only matches through full Unicode folding (ẞ → ss)", () => {
    expect(isSensitiveKey("PAẞWORD")).toBe(true);
    expect(redactJson({ outer: [{ PAẞWORD: "hunter2" }] })).toEqual({ outer: [{ PAẞWORD: REDACTED }] });
  });

  it("redacts sensitive keys at any depth, whatever their value type", () => {
    expect(redactJson({ a: { b: [{ c: { Cookie: ["x", { y: 1 }], "ACCESS_TOKEN": 123456789 } }] } })).toEqual({
      a: { b: [{ c: { Cookie: REDACTED, ACCESS_TOKEN: REDACTED } }] },
    });
  });

  it("refuses a key that collides with an existing [REDACTED] key", () => {
    expect(redactJson({ "[REDACTED]": 1, "sk-ant-api03-abcdefghij": 2 })).toBeInstanceOf(RedactionCollision);
  });
});
