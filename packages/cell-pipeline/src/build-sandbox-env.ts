import { SANDBOX_SHELL, buildClaudeEnv } from "@wfbench/claude-cli";
import { SANDBOX_HOME, SANDBOX_TMP } from "@wfbench/sandbox-bwrap";

/** The PATH inside the sandbox (reference §6.1): the mounted CLI's directory first. */
export const SANDBOX_PATH = "/opt/claude:/usr/local/bin:/usr/bin:/bin";

/**
 * The environment allow-list of every sandboxed command (reference §6.3); the host environment is never copied. Model
 * sessions add the gateway variables on top; verify and oracle runs get exactly this (no key, no token).
 */
export function buildSandboxEnv(): Record<string, string> {
  return {
    HOME: SANDBOX_HOME,
    USER: "agent",
    LOGNAME: "agent",
    TMPDIR: SANDBOX_TMP,
    XDG_CONFIG_HOME: `${SANDBOX_HOME}/.config`,
    XDG_CACHE_HOME: `${SANDBOX_HOME}/.cache`,
    XDG_STATE_HOME: `${SANDBOX_HOME}/.local/state`,
    PATH: SANDBOX_PATH,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    CI: "1",
    NO_COLOR: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
    NPM_CONFIG_AUDIT: "false",
    NPM_CONFIG_FUND: "false",
    NPM_CONFIG_CACHE: `${SANDBOX_TMP}/npm-cache`,
    ...buildClaudeEnv(SANDBOX_HOME),
  };
}

/**
 * The shell-prefix wrapper (reference §6.3): every Bash tool call (and every stdio MCP server the CLI starts) runs with
 * a from-scratch environment, so no key or token reaches the agent's commands. Its interpreter is the execute-only
 * shell (SANDBOX_SHELL, mounted in every model session), so the process holding the CLI's environment is never
 * dumpable, and `exec -c` hands `env` an empty environment: no readable process ever carries the token, where a
 * process the agent left running could read it from /proc/<pid>/environ. Refuses (exit 64) anything but exactly one
 * command argument. The host-unsafe backend has no SANDBOX_SHELL (and no boundary to keep), so its prefix runs under
 * the host's /bin/bash.
 */
export function renderShellPrefix(backend: "bwrap" | "host-unsafe" = "bwrap"): string {
  return [
    `#!${backend === "bwrap" ? SANDBOX_SHELL : "/bin/bash"}`,
    "set -eu",
    'if [ "$#" -ne 1 ]; then exit 64; fi',
    `exec -c /usr/bin/env HOME=${SANDBOX_HOME} USER=agent LOGNAME=agent TMPDIR=${SANDBOX_TMP} PATH=${SANDBOX_PATH} LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb /bin/bash -c "$1"`,
    "",
  ].join("\n");
}
