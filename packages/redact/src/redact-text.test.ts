import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_SECRET_CHARS, REDACTED, createTextRedactor, redactKnownSecrets, redactText } from "./redact-text.js";

describe("redactText", () => {
  it.each([
    ["a literal secret", "key=lit-secret-123 ok", ["lit-secret-123"], "key=[REDACTED] ok"],
    ["the longer of two overlapping secrets", "abcd-longer", ["abcd", "abcd-longer"], "[REDACTED]"],
    ["every occurrence of each secret", "a sk-1234 b sk-1234 c key9", ["sk-1234", "key9"], "a [REDACTED] b [REDACTED] c [REDACTED]"],
    ["an Anthropic key", "x sk-ant-api03-AbCdEf_12-34 y", [], "x [REDACTED] y"],
    ["GitHub tokens", "ghp_abcdefgh1 gho_abcdefgh2 ghs_abcdefgh3 ghu_abcdefgh4 ghr_abcdefgh5", [], "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]"],
    ["a bearer authorization value", "Authorization: Bearer abc.def next", [], "Authorization: Bearer [REDACTED] next"],
    ["an authorization assignment", "authorization=xyz123 next", [], "authorization=[REDACTED] next"],
    ["URL userinfo", "https://user:p%40ss@host/x and ssh://git:tok@h", [], "https://[REDACTED]@host/x and ssh://[REDACTED]@h"],
    ["URL userinfo without a password", "see http://u:p@h.invalid/x and ftp://tok@h2.invalid", [], "see http://[REDACTED]@h.invalid/x and ftp://[REDACTED]@h2.invalid"],
  ])("redacts %s", (_label, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });

  it.each([
    "sk-ant-short",
    "gh_abcdefghij",
    "https://host:8080/path@x",
    "ghp_1234567",
    '["https://host","x@y"]',
    "https://host?to=a@b",
    "a basic bearer of sk-ant- news, gh_ and an email a@b.c",
    "the bearer of bad news",
  ])("leaves %j alone", (text) => {
    expect(redactText(text)).toBe(text);
  });

  it(`ignores empty, missing and shorter-than-${MIN_SECRET_CHARS} secrets, which would match ordinary text`, () => {
    expect(redactText("abc ab a", ["", undefined, "abc", "ab", "a"])).toBe("abc ab a");
    expect(redactText("abcd", ["abcd"])).toBe(REDACTED);
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

  it("gives the same result prepared once as called each time", () => {
    const redact = createTextRedactor(["lit-secret-123"]);
    for (const text of ["x lit-secret-123 y", "Bearer abcdefghijkl", "plain"]) expect(redact(text)).toBe(redactText(text, ["lit-secret-123"]));
  });
});

describe("attempts to leak a secret through redaction", () => {
  it.each([
    ["a Basic authorization value", "Authorization: Basic dXNlcjpzZWNyZXQ=", "Authorization: Basic [REDACTED]"],
    ["a token-scheme authorization value", "curl -H 'authorization: token abcdef123456' x", "curl -H 'authorization: token [REDACTED]' x"],
    ["a bearer value in its own string (a header pair)", "Bearer abcdefghijkl", "Bearer [REDACTED]"],
    ["token-only URL userinfo", "git clone https://abcdef0123456789@github.com/o/r", "git clone https://[REDACTED]@github.com/o/r"],
    ["a raw @ inside the URL password", "https://user:p@ss@github.com/x", "https://[REDACTED]@github.com/x"],
  ])("redacts %s", (_label, text, expected) => {
    expect(redactText(text)).toBe(expected);
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
        expect(decodesToSecret(redactKnownSecrets(`data ${encoded} end`, [secret]))).toBe(false);
      }
    }
  });
});

describe("redactKnownSecrets", () => {
  it("replaces the known secrets and their encodings and leaves credential shapes alone", () => {
    const secret = "upstream-key-0123456789";
    const encoded = Buffer.from(secret).toString("base64");
    const text = `echo ${secret} ${encoded} https://u:p@host Bearer abcdefghijkl`;
    // 23 bytes: the first 30 base64 characters depend on the secret alone; the last two carry padding.
    expect(redactKnownSecrets(text, [secret])).toBe(`echo ${REDACTED} ${REDACTED}${encoded.slice(30)} https://u:p@host Bearer abcdefghijkl`);
    expect(redactKnownSecrets(text, [])).toBe(text);
  });
});
