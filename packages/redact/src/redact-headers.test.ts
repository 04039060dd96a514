import { describe, expect, it } from "vitest";
import { REDACTED } from "./redact-text.js";
import { SENSITIVE_KEYS, isSensitiveHeaderName, redactHeaders } from "./redact-headers.js";

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
      "X-Upper": "kept",
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
      "x-upper": "kept",
    });
    expect(JSON.stringify(out)).not.toMatch(/sk-1|Bearer|Basic|a=b|tok"/);
  });

  it("hides credential-shaped values under innocent header names and keeps ordinary ones", () => {
    expect(
      redactHeaders(
        {
          "x-upstream": "Bearer abc.def-123",
          "x-basic": "basic dXNlcjpwYXNz",
          "x-note": "key sk-ant-api03-AbCdEf_12-34 here",
          "x-known": "value known-secret-value",
          referer: "https://user:p@ss@host.invalid/a",
          "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
          "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
        },
        ["known-secret-value"],
      ),
    ).toEqual({
      "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
      referer: `https://${REDACTED}@host.invalid/a`,
      "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
      "x-basic": `basic ${REDACTED}`,
      "x-known": `value ${REDACTED}`,
      "x-note": `key ${REDACTED} here`,
      "x-upstream": `Bearer ${REDACTED}`,
    });
  });
});

describe("isSensitiveHeaderName", () => {
  it.each(["X-Api-Key", "x-goog-api-key", "x-auth-token", "x-secret", "x-amz-security-token", "x-signature", "authorization", "cookie"])("treats %s as secret", (name) => {
    expect(isSensitiveHeaderName(name)).toBe(true);
  });

  it.each(["content-type", "anthropic-beta", "user-agent", "x-app"])("keeps %s", (name) => {
    expect(isSensitiveHeaderName(name)).toBe(false);
  });

  it("covers every sensitive JSON key, so a header can never be less hidden than the same key in a transcript", () => {
    for (const key of SENSITIVE_KEYS) expect(isSensitiveHeaderName(key), key).toBe(true);
  });
});
