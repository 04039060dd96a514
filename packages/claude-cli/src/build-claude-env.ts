/** Where the CLI binary is mounted inside the sandbox (reference §6.1); argv[0] of every session. */
export const SANDBOX_CLAUDE = "/opt/claude/claude";
/** Where the shell-prefix wrapper the CLI runs every Bash call through is mounted (reference §6.1, §6.3). */
export const SANDBOX_SHELL_PREFIX = "/opt/claude/shell-prefix";
/** Where the execute-only copy of bash (stageExecOnlyShell) is mounted: the CLI's own shell in a model session. */
export const SANDBOX_SHELL = "/opt/claude/bash";

/**
 * The knob a model session adds when SANDBOX_SHELL is mounted (see stageExecOnlyShell). Measured on 2.1.332 with a
 * watcher left running by one Bash call: for every later call the CLI starts `/bin/bash -c "<prefix> '<cmd>'"` with
 * its own environment (the cell token), then the prefix script and its `env -i`, and all three were dumpable (readable
 * binaries), so the watcher read the token from their /proc/<pid>/environ and spent it on the gateway. With this the
 * CLI's shell is the execute-only copy (the kernel makes it non-dumpable, like the CLI); the prefix script must run
 * under the same copy (`#!` SANDBOX_SHELL) and empty the environment with `exec -c` before anything readable runs. The
 * prefix itself stays one path: the CLI also starts every stdio MCP server as `<prefix> '<command>'`, spawning the
 * whole prefix value as a program.
 */
export const CLAUDE_EXEC_ONLY_SHELL_ENV: Readonly<Record<string, string>> = Object.freeze({
  CLAUDE_CODE_SHELL: SANDBOX_SHELL,
});

/**
 * The CLI knobs of reference §6.3 that every sandboxed command's environment carries (sessions, setup, verify and
 * oracle alike): no update checks, no telemetry, no inherited env, Bash through the shell prefix, config under `home`.
 * Trusts `home` to be the sandbox's private home; sets no key and no token.
 */
export function buildClaudeEnv(home: string): Record<string, string> {
  return {
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DONT_INHERIT_ENV: "1",
    CLAUDE_CODE_SHELL_PREFIX: SANDBOX_SHELL_PREFIX,
    CLAUDE_CONFIG_DIR: `${home}/.claude`,
  };
}

/**
 * The knobs a model session adds on top of {@link buildClaudeEnv}, measured against CLI 2.1.332: no bundled skills (only
 * the evaluated ones may load), no auto-memory, no error reporting, and no background tasks.
 */
export const CLAUDE_SESSION_ENV: Readonly<Record<string, string>> = Object.freeze({
  CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
  CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  // 2.1.332 backgrounds `Bash run_in_background` and unflagged Task calls, then emits events (and a second result)
  // after the first result, which the single-result evidence rule refuses; this keeps them in the foreground.
  CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: "1",
});
