import { describe, expect, it } from "vitest";
import { REDACTED, isSecretHeaderName, redactHeaders } from "./redact-headers.js";

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
