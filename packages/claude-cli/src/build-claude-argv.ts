import { canonicalJson } from "@wfbench/digest";
import { SANDBOX_CLAUDE, SANDBOX_SHELL, SANDBOX_SHELL_PREFIX } from "./build-claude-env.js";
import { ClaudeCliError } from "./errors.js";

/** Built-in tools a session may use (reference §6.4; no MCP server in this pipeline yet). */
export const AGENT_TOOLS = ["Read", "Grep", "Glob", "Edit", "Write", "Bash", "Skill"] as const;

/**
 * Settings keys whose value is a command the CLI runs itself, outside the shell prefix, with its own environment (the
 * cell token included). Measured on 2.1.332: a project `apiKeyHelper` ran at start-up although ANTHROPIC_API_KEY was
 * set; an empty value in `--settings` (which outranks project, local, user and global-config settings) keeps any lower
 * source's helper from running. The others only run for Bedrock, Vertex, telemetry or a proxy, and are emptied too.
 */
export const CREDENTIAL_HELPER_SETTINGS = ["apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper"] as const;

// The argv is readable by every process in the sandbox (/proc/1/cmdline), so a credential never goes into it.
const CREDENTIAL_ENV = /^(?:ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|ANTHROPIC_CUSTOM_HEADERS)$|KEY|TOKEN|SECRET|PASSWORD/u;

/**
 * Settings handed with `--settings` (reference §6.4), the highest settings source the agent cannot write. Measured on
 * 2.1.332: the `env` of a project `.claude/settings.json` (hot-reloaded mid-session) or of `$CLAUDE_CONFIG_DIR/
 * .claude.json` replaces the process env, CLAUDE_CODE_SHELL_PREFIX included, so later Bash calls saw the cell token;
 * the same keys here win over both. So `env` pins `pinnedEnv` (the session's non-secret environment) plus the shell
 * prefix; the credential helpers are emptied; hooks are off. Claude Code's own sandbox stays off: the session already
 * runs in our bwrap, whose seccomp filter refuses the namespaces a nested sandbox would need (measured, spec §3.7).
 * The prefix is always SANDBOX_SHELL_PREFIX; CLAUDE_CODE_SHELL, when `pinnedEnv` names one, may only be SANDBOX_SHELL
 * (CLAUDE_EXEC_ONLY_SHELL_ENV): no other shell or prefix is ever pinned.
 * @throws {ClaudeCliError} CLAUDE_CLI_SETTINGS_INVALID for a pinned name that looks like a credential, or another shell.
 */
export function buildClaudeSettings(pinnedEnv: Readonly<Record<string, string>> = {}): string {
  const leaked = Object.keys(pinnedEnv).filter((name) => CREDENTIAL_ENV.test(name));
  if (leaked.length > 0) throw new ClaudeCliError("CLAUDE_CLI_SETTINGS_INVALID", `credential-like variables never go into --settings (argv is readable in the sandbox): ${leaked.join(", ")}`);
  const shell = pinnedEnv["CLAUDE_CODE_SHELL"];
  if (shell !== undefined && shell !== SANDBOX_SHELL) throw new ClaudeCliError("CLAUDE_CLI_SETTINGS_INVALID", `CLAUDE_CODE_SHELL may only be the execute-only ${SANDBOX_SHELL}, not ${shell}`);
  return canonicalJson({
    disableAllHooks: true,
    sandbox: { enabled: false },
    permissions: { allow: ["Read", "Grep", "Glob", "Bash"], disableBypassPermissionsMode: "disable" },
    ...Object.fromEntries(CREDENTIAL_HELPER_SETTINGS.map((key) => [key, ""])),
    env: { ...pinnedEnv, CLAUDE_CODE_DONT_INHERIT_ENV: "1", CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX },
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
  /** Offer the Write tool (false for the proposer session, which writes through Bash only). Default true. */
  readonly allowWrite?: boolean;
  /** Directories outside the workspace the session may write (`--add-dir`), e.g. `/review-output`. */
  readonly addDirs?: readonly string[];
  /** The session's non-secret environment, pinned in `--settings` so no writable settings source can replace it. */
  readonly pinnedEnv?: Readonly<Record<string, string>>;
  /** The `--mcp-config` JSON (always with `--strict-mcp-config`, so no project or user server joins); default no servers. */
  readonly mcpConfig?: string;
  /** MCP tool patterns pre-approved with `--allowedTools` (e.g. `mcp__wfbench-demo`); built-ins are never widened. */
  readonly mcpAllowedTools?: readonly string[];
  /** MCP tool patterns refused with `--disallowedTools` (baseline_nomcp names every declared server). */
  readonly mcpDisallowedTools?: readonly string[];
  /** In-sandbox plugin directories loaded with `--plugin-dir` (CE arms: the read-only CE plugin snapshot). */
  readonly pluginDirs?: readonly string[];
  /** Add `--disable-slash-commands` (baseline_nomcp, reference §6.4). */
  readonly disableSlashCommands?: boolean;
}

/**
 * The headless CLI argv (reference §6.4 order); the prompt goes on stdin. Adds `--setting-sources project` so a
 * skill the agent plants in its writable config dir is never loaded (project skills need the project source, so the
 * project settings file is read too: the caller covers it with a read-only stub), and `--no-session-persistence`
 * because files under HOME are never evidence. Trusts model and effort to be validated by the caller.
 * @throws {ClaudeCliError} CLAUDE_CLI_SETTINGS_INVALID when `pinnedEnv` names a credential.
 */
export function buildClaudeArgv(input: ClaudeArgvInput): string[] {
  const tools = AGENT_TOOLS.filter((tool) => !(input.disallowSkill && tool === "Skill") && !(input.allowEdit === false && tool === "Edit") && !(input.allowWrite === false && tool === "Write")).join(",");
  const argv = [
    SANDBOX_CLAUDE,
    "-p",
    "--input-format",
    "text",
    "--output-format",
    "stream-json",
    "--verbose",
    ...(input.pluginDirs ?? []).flatMap((dir) => ["--plugin-dir", dir]),
    "--settings",
    buildClaudeSettings(input.pinnedEnv),
    "--setting-sources",
    "project",
    "--strict-mcp-config",
    "--mcp-config",
    input.mcpConfig ?? '{"mcpServers":{}}',
    "--tools",
    tools,
    "--allowedTools",
    [tools, ...(input.mcpAllowedTools ?? [])].join(","),
    ...(input.disableSlashCommands === true ? ["--disable-slash-commands"] : []),
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
  for (const pattern of input.mcpDisallowedTools ?? []) argv.push("--disallowedTools", pattern);
  return argv;
}
