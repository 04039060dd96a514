import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { compareCodePoints, sha256Stream } from "@wfbench/digest";
import { openWorkspaceFile } from "./open-workspace-file.js";

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

/**
 * What the Claude Code CLI itself creates in its working directory by merely starting up, measured with the pinned
 * CLI (see the README): path → the descriptor kind it has. Only an entry absent before the phase and of this kind may
 * appear; anything inside it, or of another kind, is a change like any other.
 */
export const START_UP_NOISE: ReadonlyMap<string, "d" | "f"> = new Map([]);

// Only the root `.git`: the harness puts its own rebuilt copy there before every session, so nothing in it reaches the
// next session or any git the harness runs. A `.git` anywhere below is content like any other.
const isIgnored = (parts: readonly string[]): boolean => parts.length === 1 && parts[0] === ".git";

const perm = (mode: number): string => (mode & 0o7777).toString(8);

async function hashFile(path: string, expected: { dev: number; ino: number }): Promise<{ size: number; sha256: string } | null> {
  const handle = await openWorkspaceFile(path, expected);
  if (handle === null) return null;
  try {
    return await sha256Stream(handle.createReadStream({ autoClose: false }));
  } finally {
    await handle.close();
  }
}

/**
 * Maps every workspace entry to a descriptor, walking without following links (reference §6.6) and leaving out only the
 * root `.git` (by content, not by name: no other entry is skipped, unlike the original's noise list). Trusts nothing
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
      if (isIgnored(parts)) continue;
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

/** The changed paths worth naming: each one whose parent did not change as well (a new tree is named by its root). */
function describe(paths: readonly string[]): string {
  const set = new Set(paths);
  const roots = paths.filter((path) => {
    const slash = path.lastIndexOf("/");
    return slash < 0 || !set.has(path.slice(0, slash));
  });
  const more = roots.length > SHOWN ? ` (+${roots.length - SHOWN} more)` : "";
  return `${roots.slice(0, SHOWN).join(", ")}${more}`;
}

/** Whether a changed path is start-up noise: absent before, present now, and of the kind the noise list names. */
function isStartUpNoise(path: string, before: WorkspaceSnapshot, after: WorkspaceSnapshot, noise: ReadonlyMap<string, "d" | "f">): boolean {
  const kind = noise.get(path);
  return kind !== undefined && !before.has(path) && (after.get(path) ?? "").startsWith(`${kind}:`);
}

/**
 * Phase-boundary rule (reference §6.6), by content: every entry but the root `.git` is compared. Without an artifact
 * nothing may change. With one (the plan document): it must have been created or changed, be a regular non-link file,
 * and only it, its newly created parent directories and new START_UP_NOISE entries (of their measured kind, nothing
 * inside them) may differ. Trusts the two snapshots as taken by {@link snapshotWorkspace}; the message names at most 8
 * changed roots (a path whose parent changed too is left to its parent).
 */
export function checkPhaseWorkspace(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
  allowedArtifact: string | null,
  noise: ReadonlyMap<string, "d" | "f"> = START_UP_NOISE,
): { ok: true } | { ok: false; error: string } {
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((path) => before.get(path) !== after.get(path) && !isStartUpNoise(path, before, after, noise))
    .sort(compareCodePoints);
  if (allowedArtifact === null) {
    return changed.length === 0 ? { ok: true } : { ok: false, error: `phase changed the read-only workspace: ${describe(changed)}` };
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
  return unauthorized.length === 0 ? { ok: true } : { ok: false, error: `phase changed unauthorized workspace path(s): ${describe(unauthorized)}` };
}
