/**
 * `-c` overrides placed before every subcommand. Command-line config outranks the repository's own
 * `.git/config`, so a task repo cannot re-enable hooks, fsmonitor, pagers, editors, credential helpers,
 * network transports or background maintenance through its config.
 */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.pager=cat",
  "core.editor=false",
  "core.askPass=false",
  "core.sshCommand=false",
  "credential.helper=",
  "protocol.allow=never",
  "protocol.file.allow=always",
  "gc.auto=0",
  "maintenance.auto=false",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "fetch.writeCommitGraph=false",
  "core.commitGraph=false",
  "advice.detachedHead=false",
];

/** Environment every git call gets regardless of runner; the host runner additionally scrubs everything else. */
export const HARDENED_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_NO_REPLACE_OBJECTS: "1",
  GIT_LITERAL_PATHSPECS: "1",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "false",
  GIT_ASKPASS: "false",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
};

const FIXED_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The complete environment of one git call, built from scratch: the caller's extra keys (commit dates, filter-driver
 * overrides) first, then a fixed PATH, `home` as HOME, and HARDENED_GIT_ENV last so extras can never re-open config.
 */
export function buildHardenedGitEnv(home: string, extra: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { ...extra, PATH: FIXED_PATH, HOME: home, XDG_CONFIG_HOME: `${home}/.config`, ...HARDENED_GIT_ENV };
}

/** Prefix `args` (built by this package, never by a task) with the hardening overrides. */
export function hardenGitArgv(args: readonly string[]): string[] {
  const prefix: string[] = [];
  for (const setting of HARDENED_GIT_CONFIG) prefix.push("-c", setting);
  return [...prefix, ...args];
}
