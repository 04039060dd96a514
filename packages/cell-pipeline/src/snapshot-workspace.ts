import { constants } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { sha256Stream } from "@wfbench/digest";

/** Path → descriptor (`d:<perm>`, `l:<perm>:<target>`, `s:<mode>`, `f:<perm>:<size>:<sha256>`), reference §6.6. */
export type WorkspaceSnapshot = ReadonlyMap<string, string>;

/** Bounds of one snapshot (reference §6.6: 100,000 entries, 16 MiB of path bytes, 1 GiB of file bytes). */
export interface SnapshotLimits {
  readonly maxEntries?: number;
  readonly maxPathBytes?: number;
  readonly maxFileBytes?: number;
}

/** The snapshot bounds of reference §6.6. */
export const SNAPSHOT_LIMITS = { maxEntries: 100_000, maxPathBytes: 16 * 1024 * 1024, maxFileBytes: 1024 * 1024 * 1024 } as const;

// Root-level entries the CLI, shells and package managers create as a side effect of merely starting up.
const ROOT_NOISE = new Set([
  ".claude",
  ".bash_profile",
  ".bashrc",
  ".gitmodules",
  ".gitconfig",
  ".idea",
  ".npmrc",
  ".profile",
  ".ripgreprc",
  ".vscode",
  ".yarnrc",
  ".yarnrc.yml",
  ".zprofile",
  ".zshrc",
  "bunfig.toml",
  "node_modules",
  "package-lock.json",
  "package.json",
  "pnpm-lock.yaml",
  "yarn.lock",
]);

function isIgnored(parts: readonly string[], isFile: boolean): boolean {
  const name = parts.at(-1) ?? "";
  if (name === ".git") return true;
  if (parts.length === 1) {
    if (ROOT_NOISE.has(name) || name === ".env" || name === ".envrc" || name.startsWith(".env.")) return true;
    // Only a plain file: a `scripts` directory or link could carry code the next phase runs.
    if (name === "scripts" && isFile) return true;
  }
  // Only this entry is the CLI's write log; `.claude/agents` or `.claude/commands` stay visible when nested.
  return name === ".cc-writes" && parts.at(-2) === ".claude";
}

const perm = (mode: number): string => (mode & 0o7777).toString(8);

async function hashFile(path: string, expected: { dev: number; ino: number }): Promise<{ size: number; sha256: string } | null> {
  // O_NONBLOCK: a FIFO swapped in after lstat must not hang the harness; O_NOFOLLOW: nor may a link.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.dev !== expected.dev || stat.ino !== expected.ino) return null;
    return await sha256Stream(handle.createReadStream({ autoClose: false }));
  } finally {
    await handle.close();
  }
}

/**
 * Maps every workspace entry to a descriptor, walking without following links (reference §6.6) and leaving out `.git`,
 * root-level bootstrap noise, a root-level plain file `scripts` and `.claude/.cc-writes` at any depth. Trusts nothing
 * in the tree: files are opened no-follow and non-blocking and re-identified before hashing. A tree over the bounds is
 * refused as a value (its content then cannot be vouched for); I/O failures throw.
 */
export async function snapshotWorkspace(root: string, limits: SnapshotLimits = {}): Promise<{ ok: true; value: WorkspaceSnapshot } | { ok: false; error: string }> {
  const maxEntries = limits.maxEntries ?? SNAPSHOT_LIMITS.maxEntries;
  const maxPathBytes = limits.maxPathBytes ?? SNAPSHOT_LIMITS.maxPathBytes;
  const maxFileBytes = limits.maxFileBytes ?? SNAPSHOT_LIMITS.maxFileBytes;
  const snapshot = new Map<string, string>();
  let pathBytes = 0;
  let fileBytes = 0;
  const pending: (readonly string[])[] = [[]];
  while (pending.length > 0) {
    const dirParts = pending.pop() ?? [];
    const names = (await readdir(join(root, ...dirParts))).sort();
    for (const name of names) {
      const parts = [...dirParts, name];
      const rel = parts.join("/");
      const host = join(root, rel);
      const stat = await lstat(host);
      if (isIgnored(parts, stat.isFile())) continue;
      pathBytes += Buffer.byteLength(rel, "utf8");
      if (snapshot.size + 1 > maxEntries) return { ok: false, error: `workspace snapshot exceeds ${maxEntries} entries` };
      if (pathBytes > maxPathBytes) return { ok: false, error: `workspace snapshot exceeds ${maxPathBytes} bytes of paths` };
      if (stat.isDirectory()) {
        snapshot.set(rel, `d:${perm(stat.mode)}`);
        pending.push(parts);
      } else if (stat.isSymbolicLink()) {
        snapshot.set(rel, `l:${perm(stat.mode)}:${await readlink(host)}`);
      } else if (stat.isFile()) {
        fileBytes += stat.size;
        if (fileBytes > maxFileBytes) return { ok: false, error: `workspace snapshot exceeds ${maxFileBytes} bytes of files` };
        const hashed = await hashFile(host, { dev: stat.dev, ino: stat.ino });
        // Replaced between lstat and open: the tree is still moving, which is itself a change worth flagging.
        snapshot.set(rel, hashed === null ? `s:${stat.mode.toString(8)}` : `f:${perm(stat.mode)}:${hashed.size}:${hashed.sha256}`);
      } else {
        snapshot.set(rel, `s:${stat.mode.toString(8)}`);
      }
    }
  }
  return { ok: true, value: snapshot };
}

const SHOWN = 8;

/**
 * Phase-boundary rule (reference §6.6). Without an artifact nothing may change. With one (the plan document): it must
 * have been created or changed, be a regular non-link file, and only it and its newly created parent directories may
 * differ. Trusts the two snapshots as taken by {@link snapshotWorkspace}; the message names at most 8 paths.
 */
export function checkPhaseWorkspace(before: WorkspaceSnapshot, after: WorkspaceSnapshot, allowedArtifact: string | null): { ok: true } | { ok: false; error: string } {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
  if (allowedArtifact === null) {
    return changed.length === 0 ? { ok: true } : { ok: false, error: `phase changed the read-only workspace: ${changed.slice(0, SHOWN).join(", ")}` };
  }
  if (!changed.includes(allowedArtifact)) return { ok: false, error: "phase did not create or change its required artifact" };
  if (!(after.get(allowedArtifact) ?? "").startsWith("f:")) return { ok: false, error: `phase artifact ${allowedArtifact} is not a regular file` };
  const allowed = new Set([allowedArtifact]);
  const parts = allowedArtifact.split("/");
  for (let depth = 1; depth < parts.length; depth += 1) {
    const parent = parts.slice(0, depth).join("/");
    if (!before.has(parent) && (after.get(parent) ?? "").startsWith("d:")) allowed.add(parent);
  }
  const unauthorized = changed.filter((path) => !allowed.has(path));
  return unauthorized.length === 0 ? { ok: true } : { ok: false, error: `phase changed unauthorized workspace path(s): ${unauthorized.slice(0, SHOWN).join(", ")}` };
}
