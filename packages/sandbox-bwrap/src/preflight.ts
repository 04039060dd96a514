import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { parseSandboxPolicy } from "./build-argv.js";
import { checkMountSources } from "./check-mount-sources.js";
import { SandboxPreflightError, type PreflightFailureCode } from "./errors.js";
import type { SandboxRunResult } from "./run-result.js";
import { DEFAULT_BWRAP_PATH, runSandboxed, type BwrapRunOptions, type HostIdentity } from "./run-sandboxed.js";
import type { SandboxPolicy, SandboxPolicyInput } from "./schema.js";

const execFileAsync = promisify(execFile);

/** A classified bwrap failure: a stable code plus a message that names the fix. */
export interface BwrapFailureClass {
  readonly code: PreflightFailureCode;
  readonly fix: string;
}

// Ordered: the first pattern that matches bwrap's stderr wins (bwrap prefixes every line with "bwrap: ").
const FAILURE_PATTERNS: ReadonlyArray<readonly [RegExp, PreflightFailureCode, string]> = [
  [
    /No permissions to creat(e|ing) new namespace/i,
    "SANDBOX_USERNS_DISABLED",
    "unprivileged user namespaces are disabled: set kernel.unprivileged_userns_clone=1 (Debian) or run the container with a seccomp profile that allows unshare/clone(CLONE_NEWUSER)",
  ],
  [
    /setting up uid map: Permission denied|loopback: Failed RTM_NEWADDR|Creating new namespace failed: Permission denied/i,
    "SANDBOX_USERNS_APPARMOR",
    "AppArmor restricts unprivileged user namespaces: set kernel.apparmor_restrict_unprivileged_userns=0 or install an AppArmor profile granting userns to /usr/bin/bwrap",
  ],
  [
    /nesting depth|max_\w*_namespaces exceeded|No space left on device/i,
    "SANDBOX_USERNS_NESTING_LIMIT",
    "the user-namespace limit is reached: raise user.max_user_namespaces, or do not run wfbench inside another sandbox that disables user namespaces",
  ],
  [
    /does not support user namespaces|Invalid argument/i,
    "SANDBOX_USERNS_UNSUPPORTED",
    "the kernel lacks user namespaces (CONFIG_USER_NS): use a kernel with user namespaces enabled",
  ],
  [
    /Can't mount proc|mount proc on/i,
    "SANDBOX_PROC_MASKED",
    "/proc is partly masked (nested container or sandbox): run on a host or a container started with an unmasked /proc (e.g. --security-opt systempaths=unconfined); a weaker sandbox without --proc is refused",
  ],
  [
    /Can't find source path|Can't create file at|Can't mkdir|No such file or directory.*(bind|mount)/i,
    "SANDBOX_MOUNT_SOURCE_MISSING",
    "a mount source or mount point is missing or not creatable: check the policy's paths exist on the host",
  ],
  [
    /execvp/i,
    "SANDBOX_EXEC_FAILED",
    "the command could not be executed inside the sandbox: check the binary is mounted and executable",
  ],
];

/** Maps bwrap's stderr to a failure class; pure, trusts nothing but the text. */
export function classifyBwrapFailure(stderr: string): BwrapFailureClass {
  for (const [pattern, code, fix] of FAILURE_PATTERNS) if (pattern.test(stderr)) return { code, fix };
  return { code: "SANDBOX_PREFLIGHT_FAILED", fix: "bwrap could not start the sandbox: read its stderr above" };
}

/** What preflight learned about the host; warnings are advisory, failures are thrown. */
export interface PreflightReport {
  readonly bwrapPath: string;
  readonly bwrapVersion: string;
  readonly bwrapSetuid: boolean;
  /** Host sysctls that decide whether user namespaces work; null when the file is absent. */
  readonly sysctls: Readonly<Record<string, string | null>>;
  readonly warnings: readonly string[];
  readonly durationMs: number;
}

/** Options for preflight: the policy to test (its exact argv runs `/bin/true`) and where bwrap is. */
export interface PreflightOptions {
  readonly policy?: SandboxPolicyInput | SandboxPolicy;
  readonly bwrapPath?: string;
  readonly timeoutMs?: number;
  readonly arch?: string;
  /** The identity runs will use: bwrap then needs unprivileged user namespaces, which root does not. */
  readonly hostIdentity?: HostIdentity;
}

const SYSCTL_FILES = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
] as const;

async function readSysctls(): Promise<Record<string, string | null>> {
  const entries = await Promise.all(
    SYSCTL_FILES.map(async (file) => [file, await readFile(file, "utf8").then((t) => t.trim(), () => null)] as const),
  );
  return Object.fromEntries(entries);
}

function failureFromRun(result: SandboxRunResult, bwrapPath: string): SandboxPreflightError {
  if (result.state === "spawn-failure") {
    return new SandboxPreflightError(
      "SANDBOX_BWRAP_NOT_FOUND",
      `bwrap is not runnable at ${bwrapPath} (${result.setupError ?? "spawn failed"}): install it (apt-get install -y bubblewrap)`,
      result.stderrTail,
    );
  }
  if (result.state === "timeout" || result.state === "forced-kill") {
    return new SandboxPreflightError("SANDBOX_PREFLIGHT_TIMEOUT", "bwrap did not finish /bin/true in time: the host is overloaded or bwrap hangs", result.stderrTail);
  }
  const cls = classifyBwrapFailure(result.stderrTail);
  const said = result.stderrTail.trim().split("\n").slice(-3).join(" | ").slice(0, 400);
  return new SandboxPreflightError(cls.code, `${cls.fix} (state ${result.state}, bwrap said: ${said || "nothing"})`, result.stderrTail);
}

let cachedKey: string | null = null;
let cachedReport: PreflightReport | null = null;

/**
 * Runs the policy's exact bwrap argv with `/bin/true` and reports the host's bwrap; successful reports are cached
 * per process and policy. Trusts only bwrap's exit record.
 * @throws {SandboxPreflightError} with a stable code naming the cause and its fix whenever the sandbox cannot run.
 */
export async function preflight(options: PreflightOptions = {}): Promise<PreflightReport> {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  const policy = options.policy ?? {};
  const key = JSON.stringify([bwrapPath, options.arch ?? process.arch, policy, options.hostIdentity ?? null]);
  if (cachedKey === key && cachedReport !== null) return cachedReport;
  const started = Date.now();

  const runOptions: BwrapRunOptions = {
    bwrapPath,
    timeoutMs: options.timeoutMs ?? 10_000,
    graceMs: 1_000,
    ...(options.arch === undefined ? {} : { arch: options.arch }),
    ...(options.hostIdentity === undefined ? {} : { hostIdentity: options.hostIdentity }),
  };
  const sources = await checkMountSources(parseSandboxPolicy(policy));
  if (!sources.ok) {
    throw new SandboxPreflightError("SANDBOX_MOUNT_SOURCE_MISSING", `policy mount check failed: ${sources.error.join("; ")}`, "");
  }
  const result = await runSandboxed(policy, ["/bin/true"], runOptions);
  if (!result.ok) throw failureFromRun(result, bwrapPath);

  const [version, mode, sysctls] = await Promise.all([
    execFileAsync(bwrapPath, ["--version"], { env: {}, timeout: 5_000 }).then((r) => r.stdout.trim(), () => "unknown"),
    stat(bwrapPath).then((s) => s.mode, () => 0),
    readSysctls(),
  ]);
  const bwrapSetuid = (mode & 0o4000) !== 0;
  const warnings: string[] = [];
  if (bwrapSetuid) warnings.push(`${bwrapPath} is setuid: setuid bwrap is deprecated upstream and has had privilege escalations; install it without the setuid bit`);
  const report: PreflightReport = { bwrapPath, bwrapVersion: version, bwrapSetuid, sysctls, warnings, durationMs: Date.now() - started };
  cachedKey = key;
  cachedReport = report;
  return report;
}
