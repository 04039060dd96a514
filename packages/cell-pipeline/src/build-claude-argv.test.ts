import { describe, expect, it } from "vitest";
import { buildClaudeArgv, buildClaudeSettings } from "./build-claude-argv.js";
import { buildSandboxEnv, renderShellPrefix } from "./build-sandbox-env.js";

function valueAfter(argv: readonly string[], flag: string): string | undefined {
  return argv[argv.indexOf(flag) + 1];
}

describe("buildClaudeArgv", () => {
  it("runs the mounted CLI headless with stream-json, dontAsk, the pinned model and effort, and no MCP server", () => {
    const argv = buildClaudeArgv({ model: "claude-sonnet-4-5", effort: "high", disallowSkill: false });
    expect(argv.slice(0, 7)).toEqual(["/opt/claude/claude", "-p", "--input-format", "text", "--output-format", "stream-json", "--verbose"]);
    expect(valueAfter(argv, "--permission-mode")).toBe("dontAsk");
    expect(valueAfter(argv, "--model")).toBe("claude-sonnet-4-5");
    expect(valueAfter(argv, "--effort")).toBe("high");
    expect(valueAfter(argv, "--mcp-config")).toBe('{"mcpServers":{}}');
    expect(argv).toContain("--strict-mcp-config");
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Edit,Write,Bash,Skill");
    expect(argv).not.toContain("--disallowedTools");
    expect(argv).not.toContain("--bare");
  });

  it("removes the Skill tool for a baseline, from --tools and with --disallowedTools", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "xhigh", disallowSkill: true });
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Edit,Write,Bash");
    expect(valueAfter(argv, "--allowedTools")).toBe("Read,Grep,Glob,Edit,Write,Bash");
    expect(argv.slice(-2)).toEqual(["--disallowedTools", "Skill"]);
  });

  it("drops Edit (keeps Write) and grants the review-output directory for a review session", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false, allowEdit: false, addDirs: ["/review-output"] });
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Write,Bash,Skill");
    expect(valueAfter(argv, "--allowedTools")).toBe("Read,Grep,Glob,Write,Bash,Skill");
    expect(valueAfter(argv, "--add-dir")).toBe("/review-output");
    expect(buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false })).not.toContain("--add-dir");
  });

  it("passes settings that disable hooks and bypass mode and keep the CLI's own sandbox off", () => {
    const settings = JSON.parse(buildClaudeSettings()) as Record<string, unknown>;
    expect(settings).toMatchObject({ disableAllHooks: true, sandbox: { enabled: false }, permissions: { disableBypassPermissionsMode: "disable" } });
  });
});

describe("buildSandboxEnv / renderShellPrefix", () => {
  it("is the reference allow-list: private home, sandbox PATH, no key and no token", () => {
    const env = buildSandboxEnv();
    expect(env).toMatchObject({ HOME: "/home/agent", TMPDIR: "/tmp", PATH: "/opt/claude:/usr/local/bin:/usr/bin:/bin", CLAUDE_CONFIG_DIR: "/home/agent/.claude", CLAUDE_CODE_SHELL_PREFIX: "/opt/claude/shell-prefix", GIT_CONFIG_NOSYSTEM: "1" });
    expect(Object.keys(env).filter((name) => /KEY|TOKEN|SECRET|ANTHROPIC/u.test(name))).toEqual([]);
  });

  it("renders a wrapper that refuses anything but one argument and clears the environment", () => {
    const script = renderShellPrefix();
    expect(script.startsWith("#!/bin/bash\nset -eu\n")).toBe(true);
    expect(script).toContain('if [ "$#" -ne 1 ]; then exit 64; fi');
    expect(script).toContain("exec /usr/bin/env -i HOME=/home/agent");
    expect(script).not.toMatch(/ANTHROPIC/u);
  });
});
