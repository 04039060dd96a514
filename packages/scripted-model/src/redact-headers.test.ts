import { describe, expect, it } from "vitest";
import { REDACTED, isSecretHeaderName, redactHeaders, redactSecretText } from "./redact-headers.js";

describe("redactHeaders", () => {
  it("hides credential-like headers and keeps the rest, sorted and lower-cased", () => {
    const out = redactHeaders({
      "x-api-key": "sk-1",
      authorization: "Bearer t",
      "proxy-authorization": "Basic p",
      cookie: "a=b",
      "x-session-token": "tok",
      "anthropic-version": "2023-06-01",
      "x-claude-code-session-id": "uuid-1",
      "set-cookie": ["a=1", "b=2"],
      "x-multi": ["a", "b"],
    });
    expect(out).toEqual({
      "anthropic-version": "2023-06-01",
      authorization: REDACTED,
      cookie: REDACTED,
      "proxy-authorization": REDACTED,
      "set-cookie": REDACTED,
      "x-api-key": REDACTED,
      "x-claude-code-session-id": "uuid-1",
      "x-multi": "a, b",
      "x-session-token": REDACTED,
    });
    expect(Object.keys(out)).toEqual([...Object.keys(out)].sort());
    expect(JSON.stringify(out)).not.toMatch(/sk-1|Bearer|Basic|a=b|tok"/);
  });

  it.each(["X-Api-Key", "x-goog-api-key", "x-auth-token", "x-secret", "x-amz-security-token", "x-signature"])("treats %s as secret", (name) => {
    expect(isSecretHeaderName(name)).toBe(true);
  });

  it.each(["content-type", "anthropic-beta", "user-agent", "x-app"])("keeps %s", (name) => {
    expect(isSecretHeaderName(name)).toBe(false);
  });
});

describe("redactHeaders on values", () => {
  it("hides credential-shaped values under innocent header names and keeps ordinary ones", () => {
    expect(
      redactHeaders({
        "x-upstream": "Bearer abc.def-123",
        "x-basic": "basic dXNlcjpwYXNz",
        "x-note": "key sk-ant-api03-AbCdEf_12-34 here",
        referer: "https://user:pw@host.invalid/a",
        "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
        "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
      }),
    ).toEqual({
      "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
      referer: `https://${REDACTED}@host.invalid/a`,
      "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
      "x-basic": `basic ${REDACTED}`,
      "x-note": `key ${REDACTED} here`,
      "x-upstream": `Bearer ${REDACTED}`,
    });
  });
});

describe("redactSecretText", () => {
  it.each([
    ["an Anthropic key", "x sk-ant-api03-AbCdEf_12-34 y", `x ${REDACTED} y`],
    ["GitHub tokens", "ghp_abcdefgh1 gho_abcdefgh2 ghs_abcdefgh3 ghu_abcdefgh4 ghr_abcdefgh5", Array(5).fill(REDACTED).join(" ")],
    ["an authorization value with a scheme", "Authorization: Bearer abc.def next", `Authorization: Bearer ${REDACTED} next`],
    ["an authorization assignment", "authorization=xyz123 next", `authorization=${REDACTED} next`],
    ["URL userinfo", "see http://u:p@h.invalid/x and ftp://tok@h2.invalid", `see http://${REDACTED}@h.invalid/x and ftp://${REDACTED}@h2.invalid`],
    ["prose that only looks similar", "a basic bearer of sk-ant- news, gh_ and an email a@b.c", "a basic bearer of sk-ant- news, gh_ and an email a@b.c"],
  ])("handles %s", (_name, text, expected) => {
    expect(redactSecretText(text)).toBe(expected);
  });
});
