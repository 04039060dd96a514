import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { openUnderRoot, readFileUnderRoot, readJsonl, writeFileExclusive } from "@wfbench/durable-fs";
import { buildResultRow, type ResultRow } from "@wfbench/result-row";
import { MAX_REUSED_TRANSCRIPT_BYTES } from "./comparator-reuse.js";

/** Cap of a copied review artifact or patch (reference §5.6: 8 MiB). */
const MAX_REUSED_SIDECAR_BYTES = 8 * 1024 * 1024;

/** An earlier results directory, checked once: its identity is compared again at every copy. */
export interface ReuseSource {
  readonly dir: string;
  readonly dev: number;
  readonly ino: number;
  /** Every complete line of its results.jsonl, parsed as JSON. */
  readonly lines: readonly unknown[];
}

/**
 * Opens `--reuse-results DIR`: the directory (no-follow) and its regular, non-link results.jsonl. Returns a refusal
 * naming what is wrong, or the source with its parsed lines; a torn last line is not read.
 */
export async function openReuseSource(dir: string, outDir: string): Promise<ReuseSource | string> {
  const [source, out] = await Promise.all([stat(dir).catch(() => null), stat(outDir).catch(() => null)]);
  if (source === null || !source.isDirectory()) return `--reuse-results ${dir} is not a directory: pass an earlier sweep's output directory`;
  if (out !== null && out.dev === source.dev && out.ino === source.ino) return `--reuse-results ${dir} is the --out directory: pass the earlier sweep's directory and a new --out`;
  let handle;
  try {
    handle = await openUnderRoot(dir, "results.jsonl", "file");
  } catch (error) {
    return `--reuse-results ${dir}: results.jsonl must be a regular file, not a link (${(error as Error).message})`;
  }
  await handle.close();
  const contents = await readJsonl(join(dir, "results.jsonl"));
  return { dir, dev: source.dev, ino: source.ino, lines: contents.values };
}

/** The copy of a reused row failed: the cell is measured fresh instead. */
export class ReuseDriftError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReuseDriftError";
  }
}

/**
 * Reference §5.6 `materialize_reused_row`: copies the row's transcripts (re-digested over the copied bytes), review
 * artifact and patch from the source into `outDir` through no-follow opens under the source directory, held by
 * descriptor and checked against the identity seen when it was opened, then returns the row re-stamped as reused.
 * A size or digest mismatch removes what was copied and throws ReuseDriftError (pay for a fresh cell).
 */
export async function materializeReusedRow(source: ReuseSource, row: ResultRow, outDir: string, now: Date): Promise<ResultRow> {
  const root = await openUnderRoot(source.dir, "", "directory");
  const written: string[] = [];
  try {
    const held = await root.stat();
    if (held.dev !== source.dev || held.ino !== source.ino) throw new ReuseDriftError(`${source.dir} was replaced since it was checked`);
    // Every read below goes through the held descriptor: a directory swapped after the check is never read.
    const heldRoot = `/proc/self/fd/${root.fd}/.`;
    const copy = async (relative: string, maxBytes: number, expected?: { sha256: string; bytes: number }): Promise<void> => {
      let file;
      try {
        file = await readFileUnderRoot(heldRoot, relative, maxBytes);
      } catch (error) {
        throw new ReuseDriftError(`${relative}: ${(error as Error).message}`);
      }
      if (expected !== undefined && (file.size !== expected.bytes || sha256Hex(file.bytes) !== expected.sha256)) throw new ReuseDriftError(`${relative} drifted from the digest its row records`);
      const target = join(outDir, relative);
      await writeFileExclusive(target, file.bytes, { mode: 0o600 });
      written.push(target);
    };
    if (row.transcript_artifacts.length > 0) await mkdir(join(outDir, "transcripts"), { recursive: true, mode: 0o700 });
    for (const artifact of row.transcript_artifacts) await copy(artifact.path, Math.min(artifact.bytes, MAX_REUSED_TRANSCRIPT_BYTES), artifact);
    const review = row["review_artifact"];
    if (typeof review === "string" && review !== "") await copy(review, MAX_REUSED_SIDECAR_BYTES);
    if (row.patch_artifact !== null) await copy(row.patch_artifact, MAX_REUSED_SIDECAR_BYTES);
    const { row_schema: _version, ...fields } = row;
    return buildResultRow({ ...fields, reused: true, reused_from_recorded_at: row.reused_from_recorded_at ?? row.recorded_at, recorded_at: now.toISOString() });
  } catch (error) {
    for (const path of written) await rm(path, { force: true });
    throw error;
  } finally {
    await root.close();
  }
}
