import { posix } from "node:path";
import { SandboxPolicyError } from "./errors.js";
import {
  SANDBOX_GATEWAY_SOCKET,
  SANDBOX_HOME,
  SANDBOX_TMP,
  SANDBOX_UID,
  SANDBOX_WORKSPACE,
  RunBoundsSchema,
  SandboxPolicySchema,
  type SandboxPolicy,
  type SandboxPolicyInput,
} from "./schema.js";

/** File descriptor numbers bwrap sees: the args file, the seccomp program and the status stream. */
export const BWRAP_FDS = { args: 3, seccomp: 4, status: 5 } as const;

/** How the host lays out the top-level system directories; decides symlink vs read-only bind. */
export interface HostLayout {
  /** True when /bin, /lib, /lib64 and /sbin are symlinks into /usr (Debian 12 and most current distributions). */
  readonly mergedUsr: boolean;
}

/** The layout of Debian 12 and other merged-/usr hosts. */
export const MERGED_USR_LAYOUT: HostLayout = { mergedUsr: true };

const SYSTEM_TOP_DIRS = ["bin", "lib", "lib64", "sbin"] as const;
const ETC_FILES = ["/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/resolv.conf"] as const;
// /etc/alternatives holds Debian's tool symlinks (awk, editor, …) that /usr/bin points through.
const ETC_DIRS = ["/etc/ssl", "/etc/ca-certificates", "/etc/alternatives"] as const;

/**
 * Parses a policy input with the schema.
 * @throws {SandboxPolicyError} SANDBOX_POLICY_INVALID with the first issues, for any input the schema refuses.
 */
export function parseSandboxPolicy(input: SandboxPolicyInput | SandboxPolicy): SandboxPolicy {
  const parsed = SandboxPolicySchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
    throw new SandboxPolicyError("SANDBOX_POLICY_INVALID", `sandbox policy refused: ${issues}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** Parent directories of read-only subpaths (shallowest first) that are not themselves inside a read-only subpath. */
export function writableAncestors(readOnlySubpaths: readonly string[]): string[] {
  const inReadOnly = (dir: string): boolean => readOnlySubpaths.some((sub) => dir === sub || dir.startsWith(`${sub}/`));
  const out = new Set<string>();
  for (const sub of readOnlySubpaths) {
    const parts = sub.split("/");
    for (let depth = 1; depth < parts.length; depth += 1) {
      const dir = parts.slice(0, depth).join("/");
      if (!inReadOnly(dir)) out.add(dir);
    }
  }
  return [...out].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Checks a run's numeric bounds (timeout, grace, capture sizes) against the timer and buffer limits.
 * @throws {SandboxPolicyError} SANDBOX_OPTIONS_INVALID for a bound out of range or not an integer.
 */
export function assertRunBounds(options: object): void {
  const parsed = RunBoundsSchema.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new SandboxPolicyError("SANDBOX_OPTIONS_INVALID", `run options refused: ${issues}`, { cause: parsed.error });
  }
}

/** The in-sandbox working directory a policy resolves to. */
export function resolveSandboxCwd(policy: SandboxPolicy): string {
  return policy.cwd ?? (policy.workspace === null ? SANDBOX_HOME : SANDBOX_WORKSPACE);
}

/**
 * Builds the bwrap options for a policy: a pure function, no filesystem access. The result goes into the
 * `--args` file (never the command line) and ends with the seccomp and status fds of BWRAP_FDS.
 * Trusts nothing in the policy beyond its schema; the root is an allow-list (never `--ro-bind / /`).
 * @throws {SandboxPolicyError} when the policy fails the schema.
 */
export function buildBwrapArgv(input: SandboxPolicyInput | SandboxPolicy, layout: HostLayout = MERGED_USR_LAYOUT): string[] {
  const policy = parseSandboxPolicy(input);
  const argv: string[] = [
    "--unshare-all",
    "--unshare-user",
    // Without this, bwrap's own init sits in the namespace as pid 1: dumpable, same uid as the command, holding the
    // command's stdio and its parsed --args (every --setenv value) in memory — so any process inside could take the
    // captured stdout (pidfd_getfd, /proc/1/mem) and read the secrets. As pid 1 the command is the only holder.
    "--as-pid-1",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--hostname",
    policy.hostname,
    "--ro-bind",
    "/usr",
    "/usr",
  ];
  for (const dir of SYSTEM_TOP_DIRS) {
    if (layout.mergedUsr) argv.push("--symlink", `usr/${dir}`, `/${dir}`);
    else argv.push("--ro-bind-try", `/${dir}`, `/${dir}`);
  }
  for (const file of ETC_FILES) argv.push("--ro-bind-try", file, file);
  for (const dir of ETC_DIRS) argv.push("--ro-bind-try", dir, dir);
  // The sandbox user is host uid 0 when the harness runs as root (uid_map `1000 0 1`), and the kernel lets host root's
  // uid write root-owned sysctls without any capability (kernel.core_pattern → code execution on the host).
  // bwrap's own /proc cover skips /proc/sys in that case, so bind it read-only ourselves; sysrq-trigger likewise.
  argv.push("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger");
  argv.push("--dev", "/dev", "--tmpfs", "/run");

  if (policy.tmpHostPath === null) argv.push("--tmpfs", SANDBOX_TMP);
  else argv.push("--bind", policy.tmpHostPath, SANDBOX_TMP);
  if (policy.homeHostPath === null) argv.push("--tmpfs", posix.dirname(SANDBOX_HOME), "--dir", SANDBOX_HOME);
  else argv.push("--bind", policy.homeHostPath, SANDBOX_HOME);

  if (policy.workspace !== null) {
    const { hostPath, mode, readOnlySubpaths } = policy.workspace;
    argv.push(mode === "rw" ? "--bind" : "--ro-bind", hostPath, SANDBOX_WORKSPACE);
    // In a writable workspace a read-only subpath could still be moved aside by renaming one of its parents (and a
    // replacement planted in its place). A writable self-bind makes each parent a mount point, which rename refuses.
    if (mode === "rw") for (const dir of writableAncestors(readOnlySubpaths)) argv.push("--bind", `${hostPath}/${dir}`, `${SANDBOX_WORKSPACE}/${dir}`);
    for (const sub of readOnlySubpaths) argv.push("--ro-bind", `${hostPath}/${sub}`, `${SANDBOX_WORKSPACE}/${sub}`);
  }
  for (const mount of policy.mounts) argv.push(mount.mode === "rw" ? "--bind" : "--ro-bind", mount.source, mount.target);
  for (const target of policy.tmpfs) argv.push("--tmpfs", target);
  if (policy.network.mode === "gateway-socket") {
    // A read-only bind of a socket still allows connect(); it only stops the sandbox replacing the inode.
    argv.push("--ro-bind", policy.network.hostSocketPath, SANDBOX_GATEWAY_SOCKET);
  }

  // The root is bwrap's scratch tmpfs; freezing it keeps writes to the granted mounts, /tmp and home.
  argv.push("--remount-ro", "/");
  argv.push("--clearenv");
  for (const name of Object.keys(policy.env).sort()) argv.push("--setenv", name, policy.env[name] ?? "");
  argv.push("--chdir", resolveSandboxCwd(policy));
  argv.push("--seccomp", String(BWRAP_FDS.seccomp), "--json-status-fd", String(BWRAP_FDS.status));
  return argv;
}

/**
 * The visible bwrap command line for a command: only `--args FD` and the command itself, so policy values
 * (secrets in env) never appear in `ps` or `/proc/1/cmdline`.
 * @throws {SandboxPolicyError} SANDBOX_ARGV_INVALID for an empty argv or a NUL byte.
 */
export function buildBwrapCommandLine(argv: readonly string[]): string[] {
  if (argv.length === 0 || argv[0] === "") throw new SandboxPolicyError("SANDBOX_ARGV_INVALID", "command argv must not be empty");
  if (argv.some((a) => a.includes("\0"))) throw new SandboxPolicyError("SANDBOX_ARGV_INVALID", "command argv must not contain NUL");
  return ["--args", String(BWRAP_FDS.args), "--", ...argv];
}

/** Encodes options as bwrap's NUL-separated `--args` file. */
export function encodeArgsFile(options: readonly string[]): Buffer {
  return Buffer.from(options.map((o) => `${o}\0`).join(""), "utf8");
}
