import { buildClaudeEnv } from "@wfbench/claude-cli";
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
 * The shell-prefix wrapper (reference §6.3): every Bash tool call runs with a from-scratch environment, so no key or
 * token reaches the agent's commands. Refuses (exit 64) anything but exactly one command argument.
 */
export function renderShellPrefix(): string {
  return [
    "#!/bin/bash",
    "set -eu",
    'if [ "$#" -ne 1 ]; then exit 64; fi',
    `exec /usr/bin/env -i HOME=${SANDBOX_HOME} USER=agent LOGNAME=agent TMPDIR=${SANDBOX_TMP} PATH=${SANDBOX_PATH} LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb /bin/bash -c "$1"`,
    "",
  ].join("\n");
}
