import { lstat, rm, rmdir } from "node:fs/promises";
import { OracleCleanupError } from "./errors.js";
import type { StagedOracle } from "./stage-oracle.js";

/**
 * Removes the private stage and then the workspace mountpoint. Only `rmdir`s the mountpoint while it is still the
 * directory that was created: anything else there is left for the caller's workspace teardown, never followed.
 * @throws {OracleCleanupError} when either removal fails.
 */
export async function removeStagedOracle(staged: StagedOracle): Promise<void> {
  const failures: unknown[] = [];
  try {
    // Owner write on the stage root lets a non-root process unlink the 0400 files inside 0700 directories. Through
    // the pinned handle: a path chmod would follow a symlink swapped in at the stage name.
    await staged.stageHandle.chmod(0o700).catch(() => undefined);
    await rm(staged.stageDir, { recursive: true, force: true });
  } catch (error) {
    failures.push(error);
  }
  try {
    const stats = await lstat(staged.mountpointPath);
    const ours =
      stats.isDirectory() &&
      stats.dev === staged.mountpointIdentity.dev &&
      stats.ino === staged.mountpointIdentity.ino;
    if (ours) await rmdir(staged.mountpointPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code !== "ENOENT") failures.push(error);
  }
  await staged.stageHandle.close().catch(() => undefined);
  await staged.mountpointHandle.close().catch(() => undefined);
  if (failures.length > 0)
    throw new OracleCleanupError(`cannot remove the oracle stage or mountpoint ${staged.name}`, {
      cause: failures.length === 1 ? failures[0] : new AggregateError(failures),
    });
}
