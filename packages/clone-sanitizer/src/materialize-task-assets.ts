import { constants } from "node:fs";
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UnsafeLayoutError } from "./errors.js";
import { inspectRelativePath } from "./inspect-path.js";
import { removeTree } from "@wfbench/durable-fs";
import type { TaskAssetSnapshot } from "./snapshot-task-assets.js";

/** The sandbox mounts a cell needs for its dependencies (in-sandbox paths under /workspace). */
export interface AssetMounts {
  readonly readOnlyBinds: readonly { readonly source: string; readonly target: string }[];
  /** Empty `.vite-temp` directories inside read-only node_modules, to overlay with `--tmpfs`. */
  readonly tmpfs: readonly string[];
}

/** In-sandbox workspace root the dependency targets are mounted under. */
export const SANDBOX_WORKSPACE = "/workspace";

/**
 * Copy a snapshot's `sandbox_copy` roots into `clone` (staged beside it, reflinked when possible, then renamed over
 * each declared root exactly), create dependency mount points without following links, and return the mounts.
 * Trusts the snapshot; refuses a clone path with a symlinked or non-directory component.
 */
export async function materializeTaskAssets(snapshot: TaskAssetSnapshot, clone: string): Promise<AssetMounts> {
  const stage = await mkdtemp(join(dirname(clone), ".wfbench-stage-"));
  try {
    for (const [i, copy] of snapshot.copies.entries()) {
      const staged = join(stage, String(i));
      await copyWritable(join(snapshot.path, copy.snapshotPath), staged);
      await ensureParents(clone, copy.path);
      const seen = await inspectRelativePath(clone, copy.path);
      if (seen.kind === "unsafe-parent") throw new UnsafeLayoutError(copy.path, `${seen.component} ${seen.reason}`);
      if (seen.kind !== "absent") await rm(join(clone, copy.path), { recursive: true, force: true });
      await rename(staged, join(clone, copy.path));
    }
  } finally {
    await removeTree(stage);
  }
  const readOnlyBinds: { source: string; target: string }[] = [];
  const tmpfs: string[] = [];
  for (const dep of snapshot.dependencies) {
    await ensureParents(clone, dep.target);
    const seen = await inspectRelativePath(clone, dep.target);
    if (seen.kind === "unsafe-parent") throw new UnsafeLayoutError(dep.target, `${seen.component} ${seen.reason}`);
    if (seen.kind === "absent") {
      if (dep.kind === "directory") await mkdir(join(clone, dep.target));
      else await writeFile(join(clone, dep.target), "", { flag: "wx" });
    } else if (seen.kind !== dep.kind) {
      throw new UnsafeLayoutError(dep.target, `mount point is a ${seen.kind}, expected a ${dep.kind}`);
    }
    const target = `${SANDBOX_WORKSPACE}/${dep.target}`;
    readOnlyBinds.push({ source: join(snapshot.path, dep.snapshotPath), target });
    if (dep.viteTemp) tmpfs.push(`${target}/.vite-temp`);
  }
  return { readOnlyBinds, tmpfs };
}

async function ensureParents(root: string, rel: string): Promise<void> {
  const parts = rel.split("/").slice(0, -1);
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    const stat = await lstat(current).catch(() => undefined);
    if (stat === undefined) {
      await mkdir(current);
      continue;
    }
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw new UnsafeLayoutError(rel, `${current} is not a real directory; refusing to follow it`);
    }
  }
}

async function copyWritable(source: string, dest: string): Promise<void> {
  // Snapshot files are frozen read-only; the clone's copies must stay editable and deletable by setup.
  const stat = await lstat(source);
  if (stat.isDirectory()) {
    await mkdir(dest, { mode: 0o755 });
    for (const name of await readdir(source)) await copyWritable(join(source, name), join(dest, name));
  } else if (stat.isFile()) {
    await copyFile(source, dest, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await chmod(dest, (stat.mode & 0o100) !== 0 ? 0o755 : 0o644);
  } else if (stat.isSymbolicLink()) {
    await symlink(await readlink(source), dest);
  }
}
