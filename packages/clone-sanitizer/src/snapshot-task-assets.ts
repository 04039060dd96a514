import { constants } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, open, readdir, readlink, rename, symlink, writeFile } from "node:fs/promises";
import { posix } from "node:path";
import { join } from "node:path";
import type { Stats } from "node:fs";
import { digestJson, sha256Hex } from "@wfbench/digest";
import { AssetCaptureError } from "./errors.js";
import { inspectRelativePath } from "./inspect-path.js";
import { parseDeclaration } from "./parse-declaration.js";
import { removeTree } from "@wfbench/durable-fs";
import type { DeclarationRejection, Result } from "./result.js";
import { TaskAssetDeclarationsSchema, type TaskAssetDeclarations, type TaskAssetDeclarationsInput } from "./schema.js";

/** Snapshot bounds (spec §6.10): 100,000 entries, 2 GiB, 4,096-byte paths. */
export interface AssetLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly maxPathBytes: number;
}

/** The spec's task-asset limits. */
export const DEFAULT_ASSET_LIMITS: AssetLimits = { maxEntries: 100_000, maxBytes: 2 * 1024 ** 3, maxPathBytes: 4096 };

/** Snapshot schema version folded into the snapshot digest. */
export const TASK_ASSET_SCHEMA_VERSION = 3;

/** One manifest entry; `mode` is 0 outside dependencies, `link_target` only for dependency symlinks. */
export interface AssetEntry {
  readonly kind: "directory" | "file" | "symlink";
  readonly link_target: string | null;
  readonly mode: number;
  readonly path: string;
  readonly sha256: string | null;
  readonly size: number;
}

/** A captured dependency: where it sits in the snapshot and what the sandbox mounts read-only. */
export interface CapturedDependency {
  readonly source: string;
  readonly target: string;
  readonly snapshotPath: string;
  readonly kind: "directory" | "file";
  readonly contentDigest: string;
  readonly entries: readonly AssetEntry[];
  /** True for `node_modules`: an empty `.vite-temp` was captured and must be overlaid with tmpfs. */
  readonly viteTemp: boolean;
}

/** A frozen, content-addressed snapshot of a task's `sandbox_copy` and `sandbox_dependencies`. */
export interface TaskAssetSnapshot {
  readonly path: string;
  readonly declarations: TaskAssetDeclarations;
  readonly copies: readonly { readonly path: string; readonly snapshotPath: string; readonly kind: "directory" | "file" }[];
  readonly copyEntries: readonly AssetEntry[];
  readonly dependencies: readonly CapturedDependency[];
  readonly manifestDigest: string;
  readonly dependencyContentDigest: string;
  readonly dependencyManifestDigest: string;
  readonly snapshotDigest: string;
  readonly harnessIdentity: string;
}

/** Input of snapshotTaskAssets. */
export interface SnapshotTaskAssetsRequest {
  readonly cacheRoot: string;
  readonly repoIdentity: string;
  readonly resolvedSha: string;
  /** The task repository's working directory (sources are read from here). */
  readonly sourceRoot: string;
  /** The harness checkout; `eval/workflow_bench/review_cases/*` copies are read from it. */
  readonly harnessRoot?: string;
  readonly declarations: TaskAssetDeclarationsInput;
  readonly limits?: AssetLimits;
}

const REVIEW_CASES_PREFIX = "eval/workflow_bench/review_cases/";

interface Budget {
  entries: number;
  bytes: number;
  readonly limits: AssetLimits;
}

type Capture = Result<AssetEntry[], DeclarationRejection>;

/**
 * Capture declared task assets once: no symlinks in copies, only inside-pointing relative links in dependencies,
 * mutation during the copy detected, limits enforced, files frozen 0400/0500 and directories 0500, stored under
 * the snapshot digest. Bad declarations come back as rejections naming the field; capture failures throw.
 */
export async function snapshotTaskAssets(
  request: SnapshotTaskAssetsRequest,
): Promise<Result<TaskAssetSnapshot, DeclarationRejection>> {
  const parsed = parseDeclaration(TaskAssetDeclarationsSchema, request.declarations);
  if (!parsed.ok) return parsed;
  const decl = parsed.value;
  const budget: Budget = { entries: 0, bytes: 0, limits: request.limits ?? DEFAULT_ASSET_LIMITS };
  const staging = await mkdtemp(join(request.cacheRoot, ".staging-"));
  let keepStaging = false;
  try {
    const copies: { path: string; snapshotPath: string; kind: "directory" | "file" }[] = [];
    const copyEntries: AssetEntry[] = [];
    let harnessIdentity = "";
    for (const [i, rel] of decl.sandbox_copy.entries()) {
      const fromHarness = rel.startsWith(REVIEW_CASES_PREFIX);
      if (fromHarness && request.harnessRoot === undefined) {
        return reject(`sandbox_copy[${i}]`, "review-case copies need a harness root");
      }
      const root = fromHarness && request.harnessRoot !== undefined ? request.harnessRoot : request.sourceRoot;
      if (fromHarness && request.harnessRoot !== undefined) harnessIdentity = request.harnessRoot;
      const captured = await captureRoot(root, rel, join(staging, "copy"), rel, budget, {
        field: `sandbox_copy[${i}]`,
        dependency: false,
      });
      if (!captured.ok) return captured;
      copyEntries.push(...captured.value);
      copies.push({ path: rel, snapshotPath: join("copy", rel), kind: captured.value[0]?.kind === "directory" ? "directory" : "file" });
    }
    const dependencies: CapturedDependency[] = [];
    for (const [i, dep] of decl.sandbox_dependencies.entries()) {
      const into = join(staging, "deps", String(i));
      const captured = await captureRoot(request.sourceRoot, dep.source, join(staging, "deps"), String(i), budget, {
        field: `sandbox_dependencies[${i}].source`,
        dependency: true,
      });
      if (!captured.ok) return captured;
      const rootEntry = captured.value[0];
      const kind = rootEntry?.kind === "directory" ? "directory" : "file";
      // Paths inside a dependency are relative to the dependency root, which itself is not listed.
      // A file dependency is listed as a single "." entry so its bytes still reach the digest.
      const entries =
        kind === "file"
          ? captured.value.map((entry) => ({ ...entry, path: "." }))
          : captured.value.slice(1).map((entry) => ({ ...entry, path: entry.path.slice(String(i).length + 1) }));
      const viteTemp = kind === "directory" && posix.basename(dep.source) === "node_modules";
      if (viteTemp) {
        await removeTree(join(into, ".vite-temp"));
        const withoutOld = entries.filter((e) => e.path !== ".vite-temp" && !e.path.startsWith(".vite-temp/"));
        await mkdir(join(into, ".vite-temp"));
        withoutOld.push({ kind: "directory", link_target: null, mode: 0o755, path: ".vite-temp", sha256: null, size: 0 });
        entries.splice(0, entries.length, ...withoutOld);
      }
      const danglingOrEscaping = findBadLink(entries);
      if (danglingOrEscaping !== undefined) {
        return reject(`sandbox_dependencies[${i}].source`, `symlink ${danglingOrEscaping} dangles or leaves the dependency`);
      }
      entries.sort(byPath);
      dependencies.push({
        source: dep.source,
        target: dep.target,
        snapshotPath: join("deps", String(i)),
        kind,
        contentDigest: digestJson(entries),
        entries,
        viteTemp,
      });
    }
    copyEntries.sort(byPath);
    const manifestDigest = digestJson(copyEntries);
    const dependencyContentDigest = digestJson(dependencies.map((dep) => ({ entries: dep.entries })));
    const dependencyManifestDigest = digestJson({
      dependencies: dependencies.map((dep) => ({ content: dep.contentDigest, source: dep.source, target: dep.target })),
      schema_version: 1,
    });
    const snapshotDigest = digestJson({
      declarations: decl,
      dependency_content_digest: dependencyContentDigest,
      dependency_manifest_digest: dependencyManifestDigest,
      harness_identity: harnessIdentity,
      manifest_digest: manifestDigest,
      repo_identity: request.repoIdentity,
      resolved_sha: request.resolvedSha,
      schema_version: TASK_ASSET_SCHEMA_VERSION,
    });
    await freeze(staging);
    const finalPath = join(request.cacheRoot, snapshotDigest);
    try {
      await rename(staging, finalPath);
      keepStaging = true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Content-addressed: an identical snapshot already in place is reused as is.
      if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error;
    }
    return {
      ok: true,
      value: {
        path: finalPath,
        declarations: decl,
        copies,
        copyEntries,
        dependencies,
        manifestDigest,
        dependencyContentDigest,
        dependencyManifestDigest,
        snapshotDigest,
        harnessIdentity,
      },
    };
  } finally {
    if (!keepStaging) await removeTree(staging);
  }
}

function reject(field: string, message: string): { ok: false; error: DeclarationRejection } {
  return { ok: false, error: { kind: "invalid-declaration", field, message } };
}

function byPath(a: AssetEntry, b: AssetEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function findBadLink(entries: readonly AssetEntry[]): string | undefined {
  const present = new Set(entries.map((e) => e.path));
  for (const entry of entries) {
    if (entry.kind !== "symlink" || entry.link_target === null) continue;
    const resolved = posix.normalize(posix.join(posix.dirname(entry.path), entry.link_target));
    if (entry.link_target.startsWith("/") || resolved === ".." || resolved.startsWith("../")) return entry.path;
    if (resolved !== "." && !present.has(resolved)) return entry.path;
  }
  return undefined;
}

function sameState(a: Stats, b: Stats): boolean {
  return (
    a.dev === b.dev && a.ino === b.ino && a.mode === b.mode && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs
  );
}

async function captureRoot(
  sourceRoot: string,
  rel: string,
  destParent: string,
  recordedAs: string,
  budget: Budget,
  options: { field: string; dependency: boolean },
): Promise<Capture> {
  const seen = await inspectRelativePath(sourceRoot, rel);
  if (seen.kind === "unsafe-parent") return reject(options.field, `component ${seen.component} ${seen.reason}`);
  if (seen.kind === "absent") return reject(options.field, `${rel} does not exist`);
  if (seen.kind === "symlink") return reject(options.field, `${rel} is a symlink`);
  if (seen.kind === "special") return reject(options.field, `${rel} is not a file or directory`);
  const destPath = join(destParent, recordedAs);
  await mkdir(posix.dirname(destPath), { recursive: true });
  const entries: AssetEntry[] = [];
  const outcome = await captureEntry(join(sourceRoot, rel), destPath, recordedAs, budget, options, entries);
  return outcome.ok ? { ok: true, value: entries } : outcome;
}

async function captureEntry(
  source: string,
  dest: string,
  path: string,
  budget: Budget,
  options: { field: string; dependency: boolean },
  entries: AssetEntry[],
): Promise<Result<void, DeclarationRejection>> {
  budget.entries += 1;
  if (budget.entries > budget.limits.maxEntries) {
    throw new AssetCaptureError("SANITIZER_ASSET_LIMIT", path, `more than ${budget.limits.maxEntries} entries`);
  }
  if (Buffer.byteLength(path) > budget.limits.maxPathBytes) {
    throw new AssetCaptureError("SANITIZER_ASSET_LIMIT", path.slice(0, 200), `path longer than ${budget.limits.maxPathBytes} bytes`);
  }
  const before = await lstat(source);
  const mode = options.dependency ? before.mode & 0o7777 : 0;
  if (before.isSymbolicLink()) {
    if (!options.dependency) return reject(options.field, `${path} contains a symlink`);
    const target = await readlink(source);
    await symlink(target, dest);
    entries.push({ kind: "symlink", link_target: target, mode, path, sha256: null, size: 0 });
  } else if (before.isDirectory()) {
    await mkdir(dest, { mode: 0o700 });
    entries.push({ kind: "directory", link_target: null, mode, path, sha256: null, size: 0 });
    for (const name of (await readdir(source)).sort()) {
      const child = await captureEntry(join(source, name), join(dest, name), `${path}/${name}`, budget, options, entries);
      if (!child.ok) return child;
    }
  } else if (before.isFile()) {
    const { sha256, size } = await copyFileChecked(source, dest, path, before, budget);
    entries.push({ kind: "file", link_target: null, mode, path, sha256, size });
    // Freeze keeps an executable bit for the owner only; other bits are dropped.
    await chmod(dest, (before.mode & 0o100) !== 0 ? 0o700 : 0o600);
  } else {
    return reject(options.field, `${path} is not a file, directory or symlink`);
  }
  const after = await lstat(source);
  if (!sameState(before, after)) throw new AssetCaptureError("SANITIZER_ASSET_MUTATED", path, "changed while it was captured");
  return { ok: true, value: undefined };
}

async function copyFileChecked(
  source: string,
  dest: string,
  path: string,
  before: Stats,
  budget: Budget,
): Promise<{ sha256: string; size: number }> {
  if (budget.bytes + before.size > budget.limits.maxBytes) {
    throw new AssetCaptureError("SANITIZER_ASSET_LIMIT", path, `more than ${budget.limits.maxBytes} bytes in total`);
  }
  const handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const opened = await handle.stat();
    if (opened.dev !== before.dev || opened.ino !== before.ino) {
      throw new AssetCaptureError("SANITIZER_ASSET_MUTATED", path, "was replaced while it was opened");
    }
    // Read one byte past the recorded size so growth during the copy is caught rather than truncated.
    const buffer = Buffer.alloc(before.size + 1);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
      if (offset > before.size) break;
    }
    if (offset !== before.size) throw new AssetCaptureError("SANITIZER_ASSET_MUTATED", path, "size changed while it was read");
    const data = buffer.subarray(0, offset);
    budget.bytes += offset;
    await writeFile(dest, data, { mode: 0o600, flag: "wx" });
    return { sha256: sha256Hex(data), size: offset };
  } finally {
    await handle.close();
  }
}

async function freeze(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await freeze(path);
    else if (entry.isFile()) {
      const stat = await lstat(path);
      await chmod(path, (stat.mode & 0o100) !== 0 ? 0o500 : 0o400);
    }
  }
  await chmod(dir, 0o500);
}
