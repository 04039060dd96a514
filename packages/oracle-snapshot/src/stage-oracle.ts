import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import type { Stats } from "node:fs";
import { lstat, mkdir, open, realpath, rm, rmdir } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { isPathWithin, writeFileExclusive } from "@wfbench/durable-fs";
import {
  OracleStageCollisionError,
  OracleStageInputError,
  OracleStageWriteError,
} from "./errors.js";
import { ORACLE_DIR_PREFIX } from "./limits.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";

/** Identity of a filesystem node, to tell "the directory we made" from anything swapped in. */
export interface NodeIdentity {
  readonly dev: number;
  readonly ino: number;
}

/**
 * A staged oracle: the empty workspace mountpoint and the private stage holding the snapshot's bytes. The two
 * directory handles stay open until `removeStagedOracle`, which pins both inodes: a directory removed and re-created
 * under the same name can never come back with the same inode number and pass as the original.
 */
export interface StagedOracle {
  readonly workspaceDir: string;
  readonly name: string;
  readonly mountpointPath: string;
  readonly mountpointIdentity: NodeIdentity;
  readonly mountpointHandle: FileHandle;
  readonly stageDir: string;
  readonly stageIdentity: NodeIdentity;
  readonly stageHandle: FileHandle;
}

/** Where to stage; `randomToken` exists so tests can aim an attack at a known name. */
export interface StageOracleOptions {
  readonly workspaceDir: string;
  readonly privateRoot: string;
  readonly randomToken?: () => string;
}

const TOKEN = /^[0-9a-f]{32}$/;
const identityOf = (stats: Stats): NodeIdentity => ({ dev: stats.dev, ino: stats.ino });

async function requireRealDirectory(path: string, role: string): Promise<Stats> {
  if (!isAbsolute(path)) throw new OracleStageInputError(`${role} ${path} must be an absolute path`);
  let resolved: string;
  let stats: Stats;
  try {
    resolved = await realpath(path);
    stats = await lstat(path);
  } catch (error) {
    throw new OracleStageInputError(`${role} ${path} is not accessible`, { cause: error });
  }
  if (resolved !== path || !stats.isDirectory())
    throw new OracleStageInputError(`${role} ${path} must be a real directory reached through no symbolic link`);
  return stats;
}

/**
 * The checks staging makes on its two roots, callable before anything else runs (a black-box oracle checks them
 * before the candidate runs): both absolute real directories reached through no link, the private root outside the
 * workspace and not writable by group or others.
 * @throws {OracleStageInputError}
 */
export async function checkStageRoots(workspaceDir: string, privateRoot: string): Promise<void> {
  await requireRealDirectory(workspaceDir, "workspace");
  const privateStats = await requireRealDirectory(privateRoot, "private root");
  if (isPathWithin(workspaceDir, privateRoot))
    throw new OracleStageInputError("the private root must lie outside the workspace");
  if ((privateStats.mode & 0o022) !== 0)
    throw new OracleStageInputError(`private root ${privateRoot} must not be writable by group or others`);
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

// mkdir never follows a final symlink and fails on any existing entry: that is the exclusive create we need.
async function makeExclusiveDirectory(path: string, what: string): Promise<FileHandle> {
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    if (errnoOf(error) === "EEXIST")
      throw new OracleStageCollisionError(`${what} ${path} already exists; refusing to reuse it`, { cause: error });
    throw new OracleStageWriteError(`cannot create ${what} ${path}`, { cause: error });
  }
  let handle: FileHandle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    throw new OracleStageCollisionError(`${what} ${path} was replaced right after creation`, { cause: error });
  }
  try {
    // The process umask may have narrowed the mode; exactly 0700 keeps re-verification strict.
    await handle.chmod(0o700);
  } catch (error) {
    await handle.close();
    throw new OracleStageWriteError(`cannot set the mode of ${what} ${path}`, { cause: error });
  }
  return handle;
}


/**
 * Creates a fresh `.wfbench-oracle-<32 hex>` mountpoint (0700, empty) in the workspace and a private stage of the
 * same name under `privateRoot` holding the snapshot's files (dirs 0700, files 0400, exclusive create, fsync).
 * Trusts only the snapshot; refuses a workspace or private root that is relative, reached through a link, or (for
 * the private root) inside the workspace or writable by group/others, and any name that already exists.
 * @throws {OracleStageInputError | OracleStageCollisionError | OracleStageWriteError}
 */
export async function stageOracle(snapshot: OracleSnapshot, options: StageOracleOptions): Promise<StagedOracle> {
  const { workspaceDir, privateRoot } = options;
  await checkStageRoots(workspaceDir, privateRoot);
  const token = options.randomToken ? options.randomToken() : randomBytes(16).toString("hex");
  if (!TOKEN.test(token)) throw new OracleStageInputError("oracle stage token must be 32 lower-case hex digits");
  const name = `${ORACLE_DIR_PREFIX}${token}`;
  const mountpointPath = join(workspaceDir, name);
  const stageDir = join(privateRoot, name);

  const mountpointHandle = await makeExclusiveDirectory(mountpointPath, "oracle mountpoint");
  let stageHandle: FileHandle | undefined;
  try {
    stageHandle = await makeExclusiveDirectory(stageDir, "oracle stage");
    const directories = new Map<string, FileHandle>([[stageDir, stageHandle]]);
    try {
      for (const file of snapshot.files) {
        const path = join(stageDir, ...file.target.split("/"));
        const parents: string[] = [];
        for (let parent = dirname(path); !directories.has(parent); parent = dirname(parent)) parents.unshift(parent);
        for (const parent of parents)
          directories.set(parent, await makeExclusiveDirectory(parent, "oracle stage directory"));
        // Exclusive, no-follow, exactly 0400, fsynced; the directories are fsynced below through the held handles.
        await writeFileExclusive(path, snapshot.readFile(file.target), { mode: 0o400, syncDirectory: false });
      }
      for (const handle of directories.values()) await handle.sync();
    } finally {
      for (const [path, handle] of directories) if (path !== stageDir) await handle.close();
    }
    return {
      workspaceDir,
      name,
      mountpointPath,
      mountpointIdentity: identityOf(await mountpointHandle.stat()),
      mountpointHandle,
      stageDir,
      stageIdentity: identityOf(await stageHandle.stat()),
      stageHandle,
    };
  } catch (error) {
    await stageHandle?.close().catch(() => undefined);
    await mountpointHandle.close().catch(() => undefined);
    // Only a stage this call created is removed; a colliding entry someone planted is left untouched.
    if (stageHandle !== undefined) await rm(stageDir, { recursive: true, force: true }).catch(() => undefined);
    await rmdir(mountpointPath).catch(() => undefined);
    if (error instanceof OracleStageCollisionError || error instanceof OracleStageWriteError) throw error;
    throw new OracleStageWriteError(`cannot write the oracle stage ${stageDir}`, { cause: error });
  }
}
