import { posix } from "node:path";
import { checkRelativePath } from "@wfbench/pycompat";
import { z } from "zod";

/** In-sandbox mount point of the workspace (the clone). */
export const SANDBOX_WORKSPACE = "/workspace";
/** In-sandbox private home directory. */
export const SANDBOX_HOME = "/home/agent";
/** In-sandbox private temporary directory. */
export const SANDBOX_TMP = "/tmp";
/** The one fixed in-sandbox path where a granted gateway Unix socket appears. */
export const SANDBOX_GATEWAY_SOCKET = "/run/gateway.sock";
/** Non-root uid/gid the sandboxed command runs as (root inside would disable Claude Code's permission modes). */
export const SANDBOX_UID = 1000;
/**
 * Default RLIMIT_NOFILE (soft = hard) of everything in a sandbox. The harness's own limit is what a hostile cell
 * would otherwise get to spend (20 000 here, often ~1M); the usual Linux default keeps builds and test runners working.
 */
export const DEFAULT_SANDBOX_OPEN_FILES = 1024;

// Paths the sandbox itself provides; letting a policy mount over them would undo the allow-list root.
const RESERVED_TARGET_ROOTS = ["/proc", "/dev", "/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc", "/run"];
const FORBIDDEN_SOURCE_ROOTS = ["/proc", "/sys", "/dev"];

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/** An absolute, normalised POSIX path without `..`, NUL or trailing slash (the `--args` file is NUL-separated). */
export const AbsolutePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith("/"), "must be absolute")
  .refine((p) => !p.includes("\0"), "must not contain NUL")
  .refine((p) => !p.split("/").includes(".."), "must not contain '..'")
  .refine((p) => posix.normalize(p) === p && (p === "/" || !p.endsWith("/")), "must be normalised (no //, /./, trailing /)");

/**
 * A relative path inside the workspace (@wfbench/pycompat's checkRelativePath, at most 4096 bytes): no leading `/`,
 * no NUL or backslash, no empty / `.` / `..` segments. `.git` is allowed: covering it read-only is legitimate.
 */
export const WorkspaceSubpathSchema = z.string().superRefine((p, ctx) => {
  const problem = checkRelativePath(p, { git: "allow" });
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem.message });
});

/** An extra bind mount: a host file or directory placed at an absolute in-sandbox target, read-only or writable. */
export const MountSchema = z
  .object({
    source: AbsolutePathSchema.refine((p) => p !== "/", "the host root is never mounted").refine(
      (p) => !FORBIDDEN_SOURCE_ROOTS.some((r) => isUnder(p, r)),
      "kernel pseudo-filesystems are never mounted",
    ),
    target: AbsolutePathSchema.refine(
      (p) => p !== "/" && !RESERVED_TARGET_ROOTS.some((r) => isUnder(p, r)),
      "target may not be /, or under /proc /dev /usr /bin /lib /lib64 /sbin /etc /run",
    ),
    mode: z.enum(["ro", "rw"]),
  })
  .strict();
/** An extra bind mount (parsed). */
export type Mount = z.output<typeof MountSchema>;

/** Environment variable name accepted into the allow-list. */
export const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "must be a portable env name");

/** Network grant: `none` (only `lo`) or one host Unix socket bound at SANDBOX_GATEWAY_SOCKET (still only `lo`). */
export const NetworkSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("none") }).strict(),
  z.object({ mode: z.literal("gateway-socket"), hostSocketPath: AbsolutePathSchema }).strict(),
]);
/** Network grant (parsed). */
export type Network = z.output<typeof NetworkSchema>;

/**
 * The whole description of one sandboxed run. Nothing of the host leaks in except what is listed here:
 * `/usr` (read-only), a few `/etc` files, and the mounts below. The environment is exactly `env`.
 */
export const SandboxPolicySchema = z
  .object({
    /** The clone, mounted at /workspace; `readOnlySubpaths` are re-bound read-only on top (e.g. evaluated skills). */
    workspace: z
      .object({
        hostPath: AbsolutePathSchema.refine((p) => p !== "/", "the host root is never mounted"),
        mode: z.enum(["ro", "rw"]),
        readOnlySubpaths: z.array(WorkspaceSubpathSchema).default([]),
      })
      .strict()
      .nullable()
      .default(null),
    /** Host directory backing /home/agent; null gives a fresh tmpfs home. */
    homeHostPath: AbsolutePathSchema.nullable().default(null),
    /** Host directory backing /tmp; null gives a fresh tmpfs. */
    tmpHostPath: AbsolutePathSchema.nullable().default(null),
    /** Extra mounts, applied in order after the workspace (later mounts shadow earlier ones). */
    mounts: z.array(MountSchema).default([]),
    /** Empty writable tmpfs overlays applied after all mounts (e.g. `<node_modules>/.vite-temp`). */
    tmpfs: z.array(AbsolutePathSchema.refine((p) => p !== "/", "not /")).default([]),
    /** The complete environment of the command; the host environment is never inherited. */
    env: z.record(EnvNameSchema, z.string().max(131_072).refine((v) => !v.includes("\0"), "must not contain NUL")).default({}),
    network: NetworkSchema.default({ mode: "none" }),
    /** Working directory inside the sandbox; defaults to /workspace when there is one, else /home/agent. */
    cwd: AbsolutePathSchema.nullable().default(null),
    hostname: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
      .default("sandbox"),
    /** RLIMIT_NOFILE, soft and hard, of bwrap and everything it starts (nothing inside can raise it). */
    maxOpenFiles: z.number().int().min(64).max(1_048_576).default(DEFAULT_SANDBOX_OPEN_FILES),
  })
  .strict()
  .superRefine((policy, ctx) => {
    const targets = new Set<string>();
    for (const mount of policy.mounts) {
      if (targets.has(mount.target)) ctx.addIssue({ code: "custom", message: `duplicate mount target ${mount.target}` });
      targets.add(mount.target);
      if (mount.target === SANDBOX_GATEWAY_SOCKET)
        ctx.addIssue({ code: "custom", message: `${SANDBOX_GATEWAY_SOCKET} is reserved for the gateway socket` });
    }
  });

/** A sandbox policy as callers write it (defaults optional). */
export type SandboxPolicyInput = z.input<typeof SandboxPolicySchema>;
/** A validated sandbox policy with every default filled in. */
export type SandboxPolicy = z.output<typeof SandboxPolicySchema>;

/** One JSON document bwrap writes to --json-status-fd. */
export const BwrapStatusRecordSchema = z.union([
  z.object({ "exit-code": z.number().int() }).loose(),
  z.object({ "child-pid": z.number().int().positive(), "pid-namespace": z.number().int().optional() }).loose(),
]);

// Node's timers hold at most 2^31-1 ms; a longer (or non-numeric) delay silently becomes 1 ms.
const MAX_TIMER_MS = 2_147_483_647;

/** The numeric bounds of a run (timeout, grace, capture sizes); the callbacks, stream and signal are typed only. */
export const RunBoundsSchema = z
  .object({
    timeoutMs: z.number().int().min(1).max(MAX_TIMER_MS),
    graceMs: z.number().int().min(0).max(MAX_TIMER_MS).optional(),
    // 0 is a legitimate bound: callers such as the hidden oracle keep no output at all (overflow is still flagged).
    maxStdoutBytes: z.number().int().min(0).max(2 ** 32).optional(),
    stderrTailBytes: z.number().int().min(0).max(2 ** 32).optional(),
  })
  .loose();
