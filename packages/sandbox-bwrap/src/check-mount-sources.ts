import { lstat, realpath } from "node:fs/promises";
import type { HostLayout } from "./build-argv.js";
import type { SandboxPolicy } from "./schema.js";

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

/**
 * Checks every host path a policy mounts: it must exist, be a real file/directory (socket for the gateway), not a
 * symlink, and resolve to itself. Trusts the filesystem only at call time (bwrap re-resolves at mount time).
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
  const problems = (await Promise.all(checks.map(([p, k, r]) => checkOne(p, k, r)))).filter((p): p is string => p !== null);
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
