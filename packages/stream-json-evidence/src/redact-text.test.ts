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

  it.each(["sk-ant-short", "gh_abcdefghij", "https://host:8080/path@x", "ghp_1234567", '["https://host","x@y"]', "https://host?to=a@b"])("leaves %j alone", (text) => {
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

describe("attempts to leak a secret through redaction", () => {
  it.each([
    ["a Basic authorization value", "Authorization: Basic dXNlcjpzZWNyZXQ=", "Authorization: Basic [REDACTED]"],
    ["a token-scheme authorization value", "curl -H 'authorization: token abcdef123456' x", "curl -H 'authorization: token [REDACTED]' x"],
    ["a bearer value in its own string (a header pair)", "Bearer abcdefghijkl", "Bearer [REDACTED]"],
    ["token-only URL userinfo", "git clone https://abcdef0123456789@github.com/o/r", "git clone https://[REDACTED]@github.com/o/r"],
    ["a raw @ inside the URL password", "https://user:p@ss@host/x", "https://[REDACTED]@host/x"],
  ])("redacts %s", (_label, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it("keeps prose about bearers readable", () => {
    expect(redactText("the bearer of bad news")).toBe("the bearer of bad news");
  });

  it("redacts base64 encodings of a literal secret at every alignment, standard and URL-safe", () => {
    const secret = "lit-Secret-Value-0123456789";
    const decodesToSecret = (text: string): boolean =>
      [...text.matchAll(/[A-Za-z0-9+/_=-]{8,}/g)].some((match) => {
        const run = match[0];
        return [run, run.slice(1), run.slice(2), run.slice(3)].some((candidate) =>
          ["base64", "base64url"].some((encoding) => Buffer.from(candidate, encoding as BufferEncoding).toString("latin1").includes(secret.slice(3, -3))),
        );
      });
    for (const prefix of ["", "u", "us", "user:", "x-api-key="]) {
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = Buffer.from(`${prefix}${secret}`).toString(encoding);
        expect(decodesToSecret(encoded)).toBe(true);
        const redacted = redactText(`data ${encoded} end`, [secret]);
        expect(decodesToSecret(redacted), `${prefix} ${encoding}: ${redacted}`).toBe(false);
        expect(redactText(redacted, [secret])).toBe(redacted);
      }
    }
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
