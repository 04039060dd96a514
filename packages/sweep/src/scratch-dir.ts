import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { removeTree, writeFileExclusive } from "@wfbench/durable-fs";

/** Prefix of every sweep's scratch dir under the temp dir. */
export const SCRATCH_PREFIX = "wfbench-run-";
const OWNER_FILE = "owner.json";

const OwnerSchema = z.strictObject({ pid: z.number().int().positive(), start: z.string().regex(/^\d+$/u) });

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or null when it is gone. */
async function readStartTime(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  // comm (field 2) may hold spaces and parentheses: fields are counted after its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null;
}

/**
 * Makes this sweep's scratch dir (mkdtemp `wfbench-run-*` under `tmpDir`) and records its owner: pid plus the
 * process start time from /proc, so a later sweep can tell a dead owner from a live one even after pid reuse.
 */
export async function claimScratchDir(tmpDir: string, pid: number): Promise<string> {
  const dir = await mkdtemp(join(tmpDir, SCRATCH_PREFIX));
  const start = await readStartTime(pid);
  if (start === null) throw new Error(`cannot read /proc/${pid}/stat to record the scratch dir's owner`);
  await writeFileExclusive(join(dir, OWNER_FILE), `${JSON.stringify({ pid, start })}\n`, { mode: 0o600 });
  return dir;
}

/**
 * Removes the `wfbench-run-*` dirs under `tmpDir` whose recorded owner is gone (no such pid, or a pid reused by a
 * process that started at another time), e.g. after a kill -9. Trusts only owner.json; a dir without a readable owner
 * record (still being made, or made by another tool) is left alone. Returns the dirs removed and those that failed.
 */
export async function reapStaleScratchDirs(tmpDir: string): Promise<{ readonly removed: readonly string[]; readonly failed: readonly { readonly dir: string; readonly error: unknown }[] }> {
  const removed: string[] = [];
  const failed: { dir: string; error: unknown }[] = [];
  const entries = await readdir(tmpDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(SCRATCH_PREFIX)) continue;
    const dir = join(tmpDir, entry.name);
    const raw = await readFile(join(dir, OWNER_FILE), "utf8").catch(() => null);
    if (raw === null) continue;
    let owner: z.infer<typeof OwnerSchema>;
    try {
      const parsed = OwnerSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) continue;
      owner = parsed.data;
    } catch {
      continue;
    }
    if ((await readStartTime(owner.pid)) === owner.start) continue;
    try {
      await removeTree(dir);
      removed.push(dir);
    } catch (error) {
      failed.push({ dir, error });
    }
  }
  return { removed, failed };
}
