import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PINNED_CLAUDE_CODE_VERSION, detectClaudeCliPlatform, selectPlatformPackage } from "./resolve-claude-cli.js";
import { ClaudeCliError } from "./errors.js";

describe("PINNED_CLAUDE_CODE_VERSION", () => {
  it("equals the exact version this package declares", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { dependencies: Record<string, string> };
    expect(PINNED_CLAUDE_CODE_VERSION).toBe(manifest.dependencies["@anthropic-ai/claude-code"]);
    expect(PINNED_CLAUDE_CODE_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("selectPlatformPackage", () => {
  it.each([
    [{ platform: "linux", arch: "x64", libc: "glibc" }, "@anthropic-ai/claude-code-linux-x64"],
    [{ platform: "linux", arch: "arm64", libc: "glibc" }, "@anthropic-ai/claude-code-linux-arm64"],
    [{ platform: "linux", arch: "x64", libc: "musl" }, "@anthropic-ai/claude-code-linux-x64-musl"],
    [{ platform: "linux", arch: "arm64", libc: "musl" }, "@anthropic-ai/claude-code-linux-arm64-musl"],
  ] as const)("maps %o to %s", (host, expected) => {
    expect(selectPlatformPackage(host)).toBe(expected);
  });

  it.each([
    { platform: "darwin", arch: "arm64", libc: "glibc" },
    { platform: "win32", arch: "x64", libc: "glibc" },
    { platform: "linux", arch: "ia32", libc: "glibc" },
  ] as const)("refuses %o with UNSUPPORTED_PLATFORM", (host) => {
    expect(() => selectPlatformPackage(host)).toThrow(ClaudeCliError);
    expect(() => selectPlatformPackage(host)).toThrow(expect.objectContaining({ code: "CLAUDE_CLI_UNSUPPORTED_PLATFORM" }));
  });
});

describe("detectClaudeCliPlatform", () => {
  it("describes this process", () => {
    const host = detectClaudeCliPlatform();
    expect(host.platform).toBe(process.platform);
    expect(host.arch).toBe(process.arch);
    expect(["glibc", "musl"]).toContain(host.libc);
  });
});
