import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { digestJson, sha256Hex } from "@wfbench/digest";

/**
 * Strings that name the harness or its hidden oracles (reference §7.3 markers, plus this harness's own names). A
 * graph or index built from a sanitized commit never needs them; one that has them leaked something.
 */
export const HARNESS_MARKERS: readonly string[] = [
  "eval/workflow_bench",
  "workflow_bench/oracles",
  "GITNEXUS_BENCH_ORACLE_ROOT",
  "WFBENCH_ORACLE_ROOT",
  "tasks.scenarios.yaml",
  ".oracle.test.",
  "wfbench-oracle",
];

/** Bounds of one index scan. */
export const INDEX_LIMITS = { maxEntries: 250_000, maxBytes: 2 * 1024 ** 3 } as const;

/** A clean index: the digest of its manifest (path, kind, size, sha256 of each entry) and of the whole snapshot. */
export interface CleanIndex {
  readonly manifestDigest: string;
  readonly snapshotDigest: string;
  readonly files: number;
  readonly bytes: number;
}

interface IndexEntry {
  readonly path: string;
  readonly kind: "file" | "directory";
  readonly size: number;
  readonly sha256: string | null;
}

/**
 * Proves a builder's output directory holds only regular files and directories, within INDEX_LIMITS, with no
 * HARNESS_MARKERS (or the caller's extra markers) in any path or any file's bytes, and digests it (canonical JSON +
 * sha256). Trusts nothing in the tree. Returns the refusal as a value; an unreadable tree throws.
 */
export async function proveIndexClean(root: string, extraMarkers: readonly string[] = []): Promise<{ ok: true; value: CleanIndex } | { ok: false; error: string }> {
  const markers = [...HARNESS_MARKERS, ...extraMarkers].filter((marker) => marker.length > 0);
  const needles = markers.map((marker) => Buffer.from(marker, "utf8"));
  const entries: IndexEntry[] = [];
  let bytes = 0;
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const names = (await readdir(join(root, dir))).sort();
    for (const name of names) {
      const path = dir === "" ? name : `${dir}/${name}`;
      if (entries.length >= INDEX_LIMITS.maxEntries) return { ok: false, error: `more than ${INDEX_LIMITS.maxEntries} entries` };
      const marker = markers.find((m) => path.includes(m));
      if (marker !== undefined) return { ok: false, error: `${path}: the path carries the harness marker ${JSON.stringify(marker)}` };
      const stats = await lstat(join(root, path));
      if (stats.isDirectory()) {
        entries.push({ path, kind: "directory", size: 0, sha256: null });
        pending.push(path);
        continue;
      }
      if (!stats.isFile()) return { ok: false, error: `${path}: not a regular file or directory (links and special files are refused)` };
      bytes += stats.size;
      if (bytes > INDEX_LIMITS.maxBytes) return { ok: false, error: `more than ${INDEX_LIMITS.maxBytes} bytes` };
      const handle = await open(join(root, path), "r");
      let data: Buffer;
      try {
        data = await handle.readFile();
      } finally {
        await handle.close();
      }
      const found = needles.findIndex((needle) => data.includes(needle));
      if (found !== -1) return { ok: false, error: `${path}: the content carries the harness marker ${JSON.stringify(markers[found])}` };
      entries.push({ path, kind: "file", size: data.length, sha256: sha256Hex(data) });
    }
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifestDigest = digestJson(entries);
  const snapshotDigest = digestJson({ schema: "wfbench-index-snapshot/1", manifest_digest: manifestDigest, files: entries.filter((e) => e.kind === "file").length, bytes });
  return { ok: true, value: { manifestDigest, snapshotDigest, files: entries.filter((e) => e.kind === "file").length, bytes } };
}
