import { canonicalJson } from "@wfbench/digest";
import { SANDBOX_CLAUDE } from "./build-claude-env.js";

/** Built-in tools a session may use (reference §6.4; no MCP server in this pipeline yet). */
export const AGENT_TOOLS = ["Read", "Grep", "Glob", "Edit", "Write", "Bash", "Skill"] as const;

/**
 * Settings handed with `--settings` (reference §6.4). Claude Code's own sandbox stays off: the session already runs in
 * our bwrap, whose seccomp filter refuses the namespaces a nested sandbox would need (measured, spec §3.7).
 */
export function buildClaudeSettings(): string {
  return canonicalJson({
    disableAllHooks: true,
    sandbox: { enabled: false },
    permissions: { allow: ["Read", "Grep", "Glob", "Bash"], disableBypassPermissionsMode: "disable" },
    env: { CLAUDE_CODE_DONT_INHERIT_ENV: "1" },
  });
}

/** What varies between sessions. */
export interface ClaudeArgvInput {
  readonly model: string;
  readonly effort: string;
  /** Remove the Skill tool (baselines). */
  readonly disallowSkill: boolean;
  /** Offer the Edit tool (false for review sessions; Write stays, for the review artifact). Default true. */
  readonly allowEdit?: boolean;
  /** Directories outside the workspace the session may write (`--add-dir`), e.g. `/review-output`. */
  readonly addDirs?: readonly string[];
}

/**
 * The headless CLI argv (reference §6.4 order); the prompt goes on stdin. Adds `--setting-sources project` so a
 * skill the agent plants in its writable config dir is never loaded, and `--no-session-persistence` because files
 * under HOME are never evidence. Trusts model and effort to be validated by the caller.
 */
export function buildClaudeArgv(input: ClaudeArgvInput): string[] {
  const tools = AGENT_TOOLS.filter((tool) => !(input.disallowSkill && tool === "Skill") && !(input.allowEdit === false && tool === "Edit")).join(",");
  const argv = [
    SANDBOX_CLAUDE,
    "-p",
    "--input-format",
    "text",
    "--output-format",
    "stream-json",
    "--verbose",
    "--settings",
    buildClaudeSettings(),
    "--setting-sources",
    "project",
    "--strict-mcp-config",
    "--mcp-config",
    '{"mcpServers":{}}',
    "--tools",
    tools,
    "--allowedTools",
    tools,
    "--permission-mode",
    "dontAsk",
    "--model",
    input.model,
    "--effort",
    input.effort,
    "--no-session-persistence",
  ];
  // Without it the CLI's own permission layer refuses a Write outside the working directory in dontAsk mode.
  for (const dir of input.addDirs ?? []) argv.push("--add-dir", dir);
  if (input.disallowSkill) argv.push("--disallowedTools", "Skill");
  return argv;
}
