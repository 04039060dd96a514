import { describe, expect, it } from "vitest";
import { buildClaudeArgv, buildClaudeSettings } from "./build-claude-argv.js";
import { CLAUDE_EXEC_ONLY_SHELL_ENV, CLAUDE_SESSION_ENV, SANDBOX_SHELL, SANDBOX_SHELL_PREFIX, buildClaudeEnv } from "./build-claude-env.js";

function valueAfter(argv: readonly string[], flag: string): string | undefined {
  return argv[argv.indexOf(flag) + 1];
}

describe("buildClaudeArgv", () => {
  it("disables slash commands only when asked, between the tool lists and the permission mode", () => {
    expect(buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: true })).not.toContain("--disable-slash-commands");
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: true, disableSlashCommands: true });
    const at = argv.indexOf("--disable-slash-commands");
    expect(argv[at - 2]).toBe("--allowedTools");
    expect(argv[at + 1]).toBe("--permission-mode");
  });

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

  it("passes a given MCP config strictly, pre-approves only the named MCP tools, and refuses the disallowed ones", () => {
    const config = '{"mcpServers":{"wfbench-demo":{"type":"stdio","command":"/usr/bin/env","args":[]}}}';
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: true, mcpConfig: config, mcpAllowedTools: ["mcp__wfbench-demo"], mcpDisallowedTools: ["mcp__other"] });
    expect(valueAfter(argv, "--mcp-config")).toBe(config);
    expect(argv[argv.indexOf("--mcp-config") - 1]).toBe("--strict-mcp-config");
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Edit,Write,Bash");
    expect(valueAfter(argv, "--allowedTools")).toBe("Read,Grep,Glob,Edit,Write,Bash,mcp__wfbench-demo");
    expect(argv.slice(-4)).toEqual(["--disallowedTools", "Skill", "--disallowedTools", "mcp__other"]);
  });

  it("loads each plugin directory with --plugin-dir first, before --settings (reference §6.4 order)", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false, pluginDirs: ["/opt/compound-engineering-plugin"] });
    expect(valueAfter(argv, "--plugin-dir")).toBe("/opt/compound-engineering-plugin");
    expect(argv.indexOf("--plugin-dir")).toBe(argv.indexOf("--verbose") + 1);
    expect(argv.indexOf("--plugin-dir")).toBeLessThan(argv.indexOf("--settings"));
    expect(buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false })).not.toContain("--plugin-dir");
  });

  it("drops Edit (keeps Write) and grants the review-output directory for a review session", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false, allowEdit: false, addDirs: ["/review-output"] });
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Write,Bash,Skill");
    expect(valueAfter(argv, "--allowedTools")).toBe("Read,Grep,Glob,Write,Bash,Skill");
    expect(valueAfter(argv, "--add-dir")).toBe("/review-output");
    expect(buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false })).not.toContain("--add-dir");
  });

  it("offers Read, Grep, Glob and Bash only to a proposer session (no Write, Edit or Skill)", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: true, allowEdit: false, allowWrite: false, disableSlashCommands: true });
    expect(valueAfter(argv, "--tools")).toBe("Read,Grep,Glob,Bash");
    expect(valueAfter(argv, "--allowedTools")).toBe("Read,Grep,Glob,Bash");
    expect(valueAfter(argv, "--mcp-config")).toBe('{"mcpServers":{}}');
    expect(argv).toContain("--strict-mcp-config");
    expect(argv).toContain("--disable-slash-commands");
  });

  it("passes settings that disable hooks and bypass mode and keep the CLI's own sandbox off", () => {
    const settings = JSON.parse(buildClaudeSettings()) as Record<string, unknown>;
    expect(settings).toMatchObject({ disableAllHooks: true, sandbox: { enabled: false }, permissions: { disableBypassPermissionsMode: "disable" } });
  });

  it("pins the shell prefix and the session's env in --settings, and empties every credential helper", () => {
    const argv = buildClaudeArgv({ model: "m-1", effort: "high", disallowSkill: false, pinnedEnv: { HOME: "/home/agent", CLAUDE_CODE_SHELL_PREFIX: "/workspace/evil", CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1" } });
    const settings = JSON.parse(valueAfter(argv, "--settings") ?? "{}") as Record<string, unknown>;
    // The harness's prefix wins even over a pinned value: it is what keeps the token out of Bash calls.
    expect(settings["env"]).toEqual({ HOME: "/home/agent", CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1", CLAUDE_CODE_DONT_INHERIT_ENV: "1", CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX });
    for (const key of ["apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper"]) expect(settings[key]).toBe("");
    expect(JSON.parse(buildClaudeSettings())).toMatchObject({ env: { CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX } });
  });

  it("pins the execute-only shell when the session's env names it, keeps the one prefix, and refuses any other shell", () => {
    const pinned = { HOME: "/home/agent", ...CLAUDE_EXEC_ONLY_SHELL_ENV };
    const env = (JSON.parse(buildClaudeSettings(pinned)) as { env: Record<string, string> }).env;
    expect(env).toMatchObject({ CLAUDE_CODE_SHELL: SANDBOX_SHELL, CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX });
    // A pinned prefix never replaces the harness's, even with the shell named.
    const forced = (JSON.parse(buildClaudeSettings({ ...pinned, CLAUDE_CODE_SHELL_PREFIX: "/workspace/evil" })) as { env: Record<string, string> }).env;
    expect(forced["CLAUDE_CODE_SHELL_PREFIX"]).toBe(SANDBOX_SHELL_PREFIX);
    for (const shell of ["/bin/bash", "/workspace/bash", ""]) {
      expect(() => buildClaudeSettings({ CLAUDE_CODE_SHELL: shell })).toThrow(expect.objectContaining({ code: "CLAUDE_CLI_SETTINGS_INVALID" }));
    }
  });

  it("refuses to put a credential into the argv, which every process in the sandbox can read", () => {
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"]) {
      expect(() => buildClaudeArgv({ model: "m", effort: "high", disallowSkill: false, pinnedEnv: { [name]: "x" } })).toThrow(expect.objectContaining({ code: "CLAUDE_CLI_SETTINGS_INVALID" }));
    }
  });
});

describe("buildClaudeEnv", () => {
  it("points the CLI's config under the given home and its Bash calls through the shell prefix, with no key or token", () => {
    const env = buildClaudeEnv("/home/agent");
    expect(env).toEqual({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DONT_INHERIT_ENV: "1",
      CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX,
      CLAUDE_CONFIG_DIR: "/home/agent/.claude",
    });
    expect(SANDBOX_SHELL_PREFIX).toBe("/opt/claude/shell-prefix");
  });

  it("adds only the execute-only shell: the prefix stays one path, as the CLI spawns it whole for MCP servers", () => {
    expect(CLAUDE_EXEC_ONLY_SHELL_ENV).toEqual({ CLAUDE_CODE_SHELL: "/opt/claude/bash" });
    expect(SANDBOX_SHELL_PREFIX).not.toMatch(/\s/u);
  });

  it("adds only disabling knobs for a session, background tasks included", () => {
    expect(Object.values(CLAUDE_SESSION_ENV).every((value) => value === "1")).toBe(true);
    expect(CLAUDE_SESSION_ENV).toMatchObject({ CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: "1", CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1" });
    expect(Object.keys({ ...buildClaudeEnv("/h"), ...CLAUDE_SESSION_ENV }).filter((name) => /KEY|TOKEN|SECRET|ANTHROPIC/u.test(name))).toEqual([]);
  });
});
