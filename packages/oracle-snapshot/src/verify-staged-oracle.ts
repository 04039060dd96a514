import { constants as fsConstants } from "node:fs";
import type { Stats } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { OracleMountpointChangedError, OracleStageTamperedError } from "./errors.js";
import type { OracleSnapshot } from "./oracle-snapshot.js";
import type { NodeIdentity, StagedOracle } from "./stage-oracle.js";

const sameNode = (stats: Stats, identity: NodeIdentity): boolean =>
  stats.dev === identity.dev && stats.ino === identity.ino;

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}

async function readNoFollow(path: string, limit: number): Promise<Buffer | null> {
  try {
    const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(limit + 1);
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * Re-reads every staged byte and entry after the oracle ran. Trusts nothing on disk: refuses a stage whose root
 * was swapped, any extra, missing or re-typed entry, a mode other than 0700/0400, or bytes that differ.
 * @throws {OracleStageTamperedError}
 */
export async function verifyStagedOracle(snapshot: OracleSnapshot, staged: StagedOracle): Promise<void> {
  const problems: string[] = [];
  const expectedFiles = new Map(snapshot.files.map((file) => [file.target, file] as const));
  const expectedDirs = new Set<string>([""]);
  for (const file of snapshot.files) {
    const parts = file.target.split("/");
    for (let index = 1; index < parts.length; index += 1) expectedDirs.add(parts.slice(0, index).join("/"));
  }
  const root = await lstatOrNull(staged.stageDir);
  if (root === null || !root.isDirectory() || !sameNode(root, staged.stageIdentity))
    throw new OracleStageTamperedError("the oracle stage directory was removed or replaced");

  const seen = new Set<string>();
  // Names nobody staged were chosen by code that ran beside the hidden tests: counted, never echoed.
  let unexpected = 0;
  const walk = async (relativeDir: string): Promise<void> => {
    const absolute = relativeDir === "" ? staged.stageDir : join(staged.stageDir, ...relativeDir.split("/"));
    let names: string[];
    try {
      names = await readdir(absolute);
    } catch {
      problems.push(`cannot list ${relativeDir || "."}`);
      return;
    }
    for (const name of names.sort()) {
      const rel = relativeDir === "" ? name : `${relativeDir}/${name}`;
      if (!expectedDirs.has(rel) && !expectedFiles.has(rel)) {
        unexpected += 1;
        continue;
      }
      seen.add(rel);
      const path = join(absolute, name);
      const stats = await lstatOrNull(path);
      if (stats === null) {
        problems.push(`${rel} vanished`);
      } else if (expectedDirs.has(rel)) {
        if (!stats.isDirectory()) problems.push(`${rel} is no longer a directory`);
        else {
          if ((stats.mode & 0o7777) !== 0o700) problems.push(`${rel} mode changed`);
          await walk(rel);
        }
      } else {
        const expected = expectedFiles.get(rel);
        if (expected === undefined) problems.push(`${rel} is not a staged file`);
        else if (!stats.isFile()) problems.push(`${rel} is no longer a regular file`);
        else {
          if ((stats.mode & 0o7777) !== 0o400) problems.push(`${rel} mode changed`);
          const bytes = await readNoFollow(path, expected.size);
          if (bytes === null || !snapshot.matches(rel, bytes)) problems.push(`${rel} bytes changed`);
        }
      }
    }
  };
  if ((root.mode & 0o7777) !== 0o700) problems.push("stage root mode changed");
  await walk("");
  if (unexpected > 0) problems.push(`${unexpected} unexpected entr${unexpected === 1 ? "y" : "ies"}`);
  for (const target of expectedFiles.keys()) if (!seen.has(target)) problems.push(`${target} is missing`);
  if (problems.length > 0)
    throw new OracleStageTamperedError(
      `the oracle stage changed while the oracle ran: ${problems.slice(0, 8).join("; ")}`,
    );
}

/**
 * Confirms the workspace mountpoint is still the empty directory that was created. Refuses a mountpoint that was
 * removed, replaced (file, link, other directory) or filled.
 * @throws {OracleMountpointChangedError}
 */
export async function verifyOracleMountpoint(staged: StagedOracle): Promise<void> {
  const stats = await lstatOrNull(staged.mountpointPath);
  if (stats === null) throw new OracleMountpointChangedError("the oracle mountpoint was removed");
  if (!stats.isDirectory() || !sameNode(stats, staged.mountpointIdentity))
    throw new OracleMountpointChangedError("the oracle mountpoint changed type or was replaced");
  const entries = await readdir(staged.mountpointPath).catch(() => null);
  if (entries === null || entries.length > 0)
    throw new OracleMountpointChangedError("the oracle mountpoint is not the empty directory that was created");
}
