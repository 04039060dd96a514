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

describe("base64 of a secret wrapped across lines (base64, MIME, PEM, JSON-escaped)", () => {
  const secret = "lit-Secret-Value-0123456789";
  // A run of base64 characters joined across every break (and the spaces around it), then tried at all four
  // character alignments: true when any of them decodes to the secret's middle (its edges depend on neighbours).
  const unwrap = (text: string): string => text.replace(/[ \t]*(?:\r\n|\r|\n|\\+[rn])[ \t]*/g, "");
  const decodesToSecret = (text: string, needle = secret.slice(3, -3)): boolean =>
    [...unwrap(text).matchAll(/[A-Za-z0-9+/_=-]{8,}/g)].some((match) => {
      const run = match[0];
      return [run, run.slice(1), run.slice(2), run.slice(3)].some((candidate) =>
        ["base64", "base64url"].some((encoding) => Buffer.from(candidate, encoding as BufferEncoding).toString("latin1").includes(needle)),
      );
    });
  const wrap = (text: string, width: number, eol: string): string => (text.match(new RegExp(`.{1,${width}}`, "gs")) ?? []).join(eol);

  it("replaces the whole wrapped span, interior breaks included, and keeps what depends on padding", () => {
    const key = "upstream-key-0123456789";
    // Python: base64.b64encode(b"upstream-key-0123456789") wrapped at 10 columns.
    const wrapped = "dXBzdHJlYW\n0ta2V5LTAx\nMjM0NTY3OD\nk=";
    expect(Buffer.from(wrapped.replace(/\n/g, ""), "base64").toString()).toBe(key);
    expect(redactText(`before\n${wrapped}\nafter`, [key])).toBe(`before\n${REDACTED}\nk=\nafter`);
    expect(redactKnownSecrets(`${wrapped.replace(/\n/g, "\r\n")}\r\n`, [key])).toBe(`${REDACTED}\r\nk=\r\n`);
  });

  it.each([
    ["base64 / MIME default (76, \\n)", 76, "\n"],
    ["MIME (76, \\r\\n)", 76, "\r\n"],
    ["PEM / base64 -w 64", 64, "\n"],
    ["an odd width", 13, "\n"],
    ["width 1", 1, "\n"],
    ["a JSON-escaped newline", 20, "\\n"],
    ["a JSON-escaped CRLF", 20, "\\r\\n"],
    ["an indented continuation (YAML block, folded header)", 16, "\n    "],
  ])("redacts a file's base64 holding the secret at every alignment, wrapped as %s", (_label, width, eol) => {
    // Every prefix length up to a line's worth of bytes, so each break lands at every position of the encoded secret.
    const prefixes = ["API_KEY=", "x-api-key: ", ...Array.from({ length: 61 }, (_, n) => "p".repeat(n))];
    for (const prefix of prefixes) {
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = wrap(Buffer.from(`${prefix}${secret}\n`).toString(encoding), width, eol);
        expect(decodesToSecret(encoded)).toBe(true);
        const text = `$ base64 key.txt${eol}${encoded}${eol}$ `;
        const redacted = redactText(text, [secret]);
        expect(decodesToSecret(redacted), `${JSON.stringify(prefix)} ${encoding}: ${JSON.stringify(redacted)}`).toBe(false);
        expect(redacted).toContain(REDACTED);
        expect(redactText(redacted, [secret])).toBe(redacted);
        expect(decodesToSecret(redactKnownSecrets(text, [secret]))).toBe(false);
      }
    }
  });

  it("redacts the literal secret itself when folded across lines", () => {
    expect(redactText("key: lit-Secret-Val\nue-0123456789 done", [secret])).toBe(`key: ${REDACTED} done`);
  });

  it("never leaves a wrapped encoding of a planted secret behind, at any width and break, and is idempotent", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.string({ minLength: 12, maxLength: 40 }),
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 1, max: 80 }),
        fc.constantFrom("\n", "\r\n", "\r", "\\n", "\\r\\n", " \n", "\n\t", "\n\n"),
        fc.constantFrom("base64", "base64url"),
        (before, key, after, width, eol, encoding: "base64" | "base64url") => {
          const middle = key.slice(3, -3);
          fc.pre(!before.includes(middle) && !after.includes(middle));
          const encoded = wrap(Buffer.from(`${before}${key}${after}`).toString(encoding), width, eol);
          const once = redactKnownSecrets(`>${encoded}<`, [key]);
          expect(decodesToSecret(once, middle), JSON.stringify(once)).toBe(false);
          expect(redactKnownSecrets(once, [key])).toBe(once);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("leaves text with no break byte for byte as the literal pass alone left it", () => {
    // The literal pass as it was before wrapped forms were searched for: each form, longest first, split and joined.
    const literalPass = (text: string, forms: readonly string[]): string =>
      [...forms].sort((a, b) => b.length - a.length).reduce((out, form) => out.split(form).join(REDACTED), text);
    const forms = (key: string): string[] => {
      const bytes = Buffer.from(key);
      const out = [key];
      for (let offset = 0; offset < 3; offset += 1) {
        const standard = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
        const fragment = standard.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
        if (fragment.length >= 10) out.push(fragment, fragment.replace(/\+/g, "-").replace(/\//g, "_"));
      }
      return [...new Set(out)];
    };
    fc.assert(
      fc.property(fc.string({ minLength: 4, maxLength: 30 }), fc.array(fc.oneof(fc.string(), fc.constant("")), { maxLength: 4 }), (key, parts) => {
        const encodedParts = parts.flatMap((part, i) => [part, i % 2 === 0 ? key : Buffer.from(`${part}${key}`).toString("base64")]);
        const text = encodedParts.join("").replace(/[\r\n]|\\[rn]/g, "");
        expect(redactKnownSecrets(text, [key])).toBe(literalPass(text, forms(key)));
      }),
      { numRuns: 300 },
    );
  });

  it("stays linear on inputs built to make a backtracking matcher or a per-break search blow up", () => {
    const secrets = ["upstream-key-0123456789abcdef"];
    for (const text of ["A\n".repeat(2 * 1024 * 1024), "\\".repeat(4 * 1024 * 1024), "a \t\n \\n".repeat(512 * 1024), `${"\\".repeat(1024 * 1024)}n`]) {
      const start = performance.now();
      expect(redactText(text, secrets)).toBe(text);
      expect(performance.now() - start).toBeLessThan(5_000);
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
