import { lstat, realpath } from "node:fs/promises";
import { writableAncestors, type HostLayout } from "./build-argv.js";
import { SANDBOX_HOME, SANDBOX_TMP, SANDBOX_WORKSPACE, type SandboxPolicy } from "./schema.js";

/** Expected outcome of a check: a value or the reasons it was refused. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

type SourceKind = "file-or-dir" | "dir" | "socket";

async function checkOne(path: string, kind: SourceKind, role: string): Promise<string | null> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown";
    return `${role} ${path} does not exist or is unreadable (${code})`;
  }
  if (stats.isSymbolicLink()) return `${role} ${path} is a symlink; mount its real target instead`;
  const kindOk =
    kind === "socket" ? stats.isSocket() : kind === "dir" ? stats.isDirectory() : stats.isDirectory() || stats.isFile();
  if (!kindOk) return `${role} ${path} is not a ${kind === "file-or-dir" ? "regular file or directory" : kind}`;
  // A symlinked parent would make bwrap mount something other than what the policy names.
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch (error) {
    return `${role} ${path} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? "unknown"})`;
  }
  if (resolved !== path) return `${role} ${path} resolves to ${resolved}; pass the resolved path`;
  return null;
}

/** A host-backed bind in bwrap's order: paths under `target` inside the sandbox are `source` paths on the host. */
interface HostBind {
  readonly target: string;
  readonly source: string;
}

// bwrap creates a mount point with mkdir/creat that follow symlinks, after pivot_root, where the host root is still
// reachable as /oldroot: a link planted in a persisted home or workspace would make it create paths on the host and
// mount somewhere else. So every existing component between the covering bind and the target must be a real directory.
async function checkTarget(target: string, earlier: readonly HostBind[], role: string): Promise<string | null> {
  let cover: HostBind | undefined;
  for (const bind of earlier) if (target.startsWith(`${bind.target}/`)) cover = bind;
  // Nothing host-backed underneath: the target lies on a tmpfs bwrap just created.
  if (cover === undefined) return null;
  const parts = target.slice(cover.target.length + 1).split("/");
  let hostPath = cover.source;
  for (const [index, part] of parts.entries()) {
    hostPath = `${hostPath}/${part}`;
    let stats;
    try {
      stats = await lstat(hostPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      return `${role} ${target} cannot be checked at ${hostPath} (${(error as NodeJS.ErrnoException).code ?? "unknown"})`;
    }
    if (stats.isSymbolicLink()) return `${role} ${target} passes through ${hostPath}, which is a symlink; refusing to mount through it`;
    if (index < parts.length - 1 && !stats.isDirectory()) return `${role} ${target} passes through ${hostPath}, which is not a directory`;
  }
  return null;
}

/** The host-backed binds of a policy in the order bwrap applies them (see buildBwrapArgv). */
function hostBinds(policy: SandboxPolicy): HostBind[] {
  const binds: HostBind[] = [];
  if (policy.tmpHostPath !== null) binds.push({ target: SANDBOX_TMP, source: policy.tmpHostPath });
  if (policy.homeHostPath !== null) binds.push({ target: SANDBOX_HOME, source: policy.homeHostPath });
  if (policy.workspace !== null) {
    const { hostPath, readOnlySubpaths } = policy.workspace;
    binds.push({ target: SANDBOX_WORKSPACE, source: hostPath });
    for (const sub of [...writableAncestors(readOnlySubpaths), ...readOnlySubpaths])
      binds.push({ target: `${SANDBOX_WORKSPACE}/${sub}`, source: `${hostPath}/${sub}` });
  }
  return binds;
}

/**
 * Checks every host path a policy mounts: it must exist, be a real file/directory (socket for the gateway), not a
 * symlink, and resolve to itself; and every mount or tmpfs target that lies inside an earlier host-backed bind must
 * not pass through a symlink or a non-directory there. Trusts the filesystem only at call time (bwrap re-resolves
 * at mount time, so nothing may write those trees concurrently).
 */
export async function checkMountSources(policy: SandboxPolicy): Promise<Result<void, string[]>> {
  const checks: Array<[string, SourceKind, string]> = [];
  if (policy.workspace !== null) {
    checks.push([policy.workspace.hostPath, "dir", "workspace"]);
    for (const sub of policy.workspace.readOnlySubpaths)
      checks.push([`${policy.workspace.hostPath}/${sub}`, "file-or-dir", "read-only workspace subpath"]);
  }
  if (policy.homeHostPath !== null) checks.push([policy.homeHostPath, "dir", "home"]);
  if (policy.tmpHostPath !== null) checks.push([policy.tmpHostPath, "dir", "tmp"]);
  for (const mount of policy.mounts) checks.push([mount.source, "file-or-dir", `mount source (→ ${mount.target})`]);
  if (policy.network.mode === "gateway-socket") checks.push([policy.network.hostSocketPath, "socket", "gateway socket"]);
  const binds = hostBinds(policy);
  const targetChecks: Array<Promise<string | null>> = [];
  policy.mounts.forEach((mount, index) => {
    const earlier = [...binds, ...policy.mounts.slice(0, index).map((m) => ({ target: m.target, source: m.source }))];
    targetChecks.push(checkTarget(mount.target, earlier, "mount target"));
  });
  const allBinds = [...binds, ...policy.mounts.map((m) => ({ target: m.target, source: m.source }))];
  for (const target of policy.tmpfs) targetChecks.push(checkTarget(target, allBinds, "tmpfs target"));
  const problems = (await Promise.all([...checks.map(([p, k, r]) => checkOne(p, k, r)), ...targetChecks])).filter(
    (p): p is string => p !== null,
  );
  return problems.length === 0 ? { ok: true, value: undefined } : { ok: false, error: problems };
}

/** Reads whether /bin, /lib, /lib64 and /sbin are symlinks into /usr on this host. */
export async function detectHostLayout(): Promise<HostLayout> {
  const dirs = ["/bin", "/lib", "/sbin"];
  const links = await Promise.all(
    dirs.map(async (d) => {
      try {
        return (await lstat(d)).isSymbolicLink();
      } catch {
        return false;
      }
    }),
  );
  return { mergedUsr: links.every(Boolean) };
}
