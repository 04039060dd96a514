import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, RedactionCollision, isSensitiveKey, redactJson, redactText } from "./redact-text.js";

describe("redactText", () => {
  it.each([
    ["a literal secret", "key=lit-secret-123 ok", ["lit-secret-123"], "key=[REDACTED] ok"],
    ["the longer of two overlapping secrets", "abc-longer", ["abc", "abc-longer"], "[REDACTED]"],
    ["an Anthropic key", "x sk-ant-api03-AbCdEf_12-34 y", [], "x [REDACTED] y"],
    ["GitHub tokens", "ghp_abcdefgh1 gho_abcdefgh2 ghs_abcdefgh3 ghu_abcdefgh4 ghr_abcdefgh5", [], "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]"],
    ["a bearer authorization value", "Authorization: Bearer abc.def", [], "Authorization: Bearer [REDACTED]"],
    ["an authorization assignment", "authorization=xyz123 next", [], "authorization=[REDACTED] next"],
    ["URL userinfo", "https://user:p%40ss@host/x and ssh://git:tok@h", [], "https://[REDACTED]@host/x and ssh://[REDACTED]@h"],
  ])("redacts %s", (_label, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });

  it.each(["sk-ant-short", "gh_abcdefghij", "https://host:8080/path@x", "ghp_1234567"])("leaves %j alone", (text) => {
    expect(redactText(text)).toBe(text);
  });

  it("ignores empty secrets", () => {
    expect(redactText("abc", [""])).toBe("abc");
  });

  it("is idempotent and never leaves a planted secret behind", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 6 }), (before, after, secret) => {
        const once = redactText(`${before}${secret}${after}`, [secret]);
        expect(once.includes(secret) && !REDACTED.includes(secret)).toBe(false);
        expect(redactText(once, [secret])).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});

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
