import { posix } from "node:path";

/** One directory a sandboxed git call sees, at the same absolute path as on the host. */
export interface GitBind {
  readonly path: string;
  readonly mode: "ro" | "rw";
}

/** The roots a sandboxed git runner may grant: writable (template and cell parents) and read-only (source repos). */
export interface GitRoots {
  readonly writable: readonly string[];
  readonly readOnly: readonly string[];
}

/** Either the binds one call needs, or why its working directory is not granted. */
export type GitBindPlan = { readonly ok: true; readonly binds: readonly GitBind[] } | { readonly ok: false; readonly reason: string };

interface Root {
  readonly path: string;
  readonly writable: boolean;
}

function isInside(path: string, root: string): boolean {
  return path === root || root === "/" || path.startsWith(`${root}/`);
}

function depth(path: string): number {
  return path.split("/").length;
}

/** Absolute paths an argument names: the argument itself, or the value of a `--opt=/abs` form. */
function namedPaths(arg: string): string[] {
  if (arg.startsWith("/")) return [posix.normalize(arg)];
  const eq = arg.indexOf("=");
  if (arg.startsWith("-") && eq > 0 && arg[eq + 1] === "/") return [posix.normalize(arg.slice(eq + 1))];
  return [];
}

/**
 * The binds one git call needs, nothing more: the deepest root holding `cwd` in its own mode, plus every other root
 * an absolute argv path falls in, read-only (a clone's source). Shallow binds come first so a nested root overrides
 * its parent's mode. Trusts the roots it is given; refuses a cwd outside every root and never grants a path no root
 * covers (git then simply cannot see it).
 */
export function planGitBinds(cwd: string, argv: readonly string[], roots: GitRoots): GitBindPlan {
  const all: Root[] = [
    ...roots.writable.map((path) => ({ path: posix.normalize(path), writable: true })),
    ...roots.readOnly.map((path) => ({ path: posix.normalize(path), writable: false })),
  ];
  const deepestHolding = (path: string): Root | undefined =>
    all
      .filter((root) => isInside(path, root.path))
      // A path listed both ways is read-only: the narrower grant wins.
      .sort((a, b) => depth(b.path) - depth(a.path) || Number(a.writable) - Number(b.writable))[0];
  if (!posix.isAbsolute(cwd)) return { ok: false, reason: `git working directory ${cwd} is not absolute` };
  const home = deepestHolding(posix.normalize(cwd));
  if (home === undefined) return { ok: false, reason: `git working directory ${cwd} is under no granted root` };
  const binds = new Map<string, GitBind>([[home.path, { path: home.path, mode: home.writable ? "rw" : "ro" }]]);
  for (const arg of argv) {
    for (const named of namedPaths(arg)) {
      const root = deepestHolding(named);
      if (root !== undefined && !binds.has(root.path)) binds.set(root.path, { path: root.path, mode: "ro" });
    }
  }
  const ordered = [...binds.values()].sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: true, binds: ordered };
}
