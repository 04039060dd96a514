import type { Dirent } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { compareCodePoints, digestJson, sha256Hex } from "@wfbench/digest";
import { isDurableFsError, listUnderRoot, openUnderRoot, removeTree } from "@wfbench/durable-fs";
import { PluginSnapshotError } from "./errors.js";
import {
  CE_PLUGIN_NAME,
  COPIED_TREES,
  DEFAULT_PLUGIN_LIMITS,
  MANIFEST_PATH,
  MARKETPLACE_PATH,
  REQUIRED_CE_SKILLS,
  isExactPluginVersion,
  isSecretLike,
  isSkippedPart,
  type PluginLimits,
} from "./rules.js";

/** Schema version folded into the manifest digest (reference §4.5); bump when the digested shape changes. */
export const PLUGIN_MANIFEST_SCHEMA_VERSION = 1;

/** The rule a refused plugin broke; stable, so tests and reports name it. */
export type PluginRule =
  | "plugin-dir"
  | "symlink"
  | "special-file"
  | "secret-like"
  | "file-too-large"
  | "too-many-files"
  | "total-too-large"
  | "path-too-long"
  | "manifest-missing"
  | "manifest-invalid"
  | "wrong-name"
  | "wrong-version"
  | "skills-missing"
  | "required-skill-missing";

/** A plugin the §6.9 rules refuse: the rule, the plugin-relative path it was found at (null: the plugin as a whole), and the fix. */
export interface PluginRefusal {
  readonly kind: "plugin-refused";
  readonly rule: PluginRule;
  readonly path: string | null;
  readonly message: string;
}

/** One copied file as digested: plugin-relative path, content hash, size, and whether it is frozen 0555 (else 0444). */
export interface PluginFile {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly executable: boolean;
}

/** What CE rows and promotion.json record about the plugin (reference §4.5). */
export interface PluginProvenance {
  readonly name: typeof CE_PLUGIN_NAME;
  readonly version: string;
  readonly manifest_schema_version: typeof PLUGIN_MANIFEST_SCHEMA_VERSION;
  readonly manifest_digest: string;
  readonly file_count: number;
  readonly total_bytes: number;
}

/** A frozen copy of the plugin at `path`, with the digest rows and promotion.json record. */
export interface PluginSnapshot {
  readonly path: string;
  readonly name: typeof CE_PLUGIN_NAME;
  readonly version: string;
  readonly files: readonly PluginFile[];
  readonly totalBytes: number;
  /** Plugin-relative paths left out by the skip rules (directories are listed once, not their contents). */
  readonly skipped: readonly string[];
  /** sha256 of canonical JSON `{schema_version, files}`: the `ce_plugin_manifest_digest` of CE rows. */
  readonly manifestDigest: string;
  readonly provenance: PluginProvenance;
}

export type SnapshotPluginResult = { ok: true; value: PluginSnapshot } | { ok: false; error: PluginRefusal };

const RequestSchema = z.object({
  pluginDir: z.string().refine(isAbsolute, "must be an absolute path"),
  expectedVersion: z.string().refine(isExactPluginVersion, "must be an exact semantic version such as 3.23.1"),
  destDir: z.string().refine(isAbsolute, "must be an absolute path"),
  limits: z
    .object({
      maxFiles: z.number().int().positive(),
      maxFileBytes: z.number().int().positive(),
      maxTotalBytes: z.number().int().positive(),
      maxPathBytes: z.number().int().positive(),
    })
    .optional(),
});

/** Input of snapshotPlugin; `destDir` must not exist yet (its parent must). */
export type SnapshotPluginRequest = z.input<typeof RequestSchema>;

const ManifestSchema = z.looseObject({ name: z.string(), version: z.string() });

interface Collected {
  readonly path: string;
  readonly data: Buffer;
  readonly executable: boolean;
}

interface Walk {
  readonly root: string;
  readonly limits: PluginLimits;
  readonly files: Collected[];
  readonly directories: string[];
  readonly skipped: string[];
  totalBytes: number;
}

class Refused {
  constructor(readonly refusal: PluginRefusal) {}
}

function refuse(rule: PluginRule, path: string | null, message: string): never {
  throw new Refused({ kind: "plugin-refused", rule, path, message: `CE plugin refused (${rule})${path === null ? "" : ` at ${path}`}: ${message}` });
}

/**
 * Copy a Compound Engineering plugin into a frozen snapshot (reference §6.9). Trusts only `pluginDir` itself; reads
 * `.claude-plugin/plugin.json` (name compound-engineering, version exactly `expectedVersion`), the optional
 * `.claude-plugin/marketplace.json`, and the trees skills/ (required, with ce-plan, ce-work and ce-code-review),
 * scripts/ and assets/, never following a link. Refuses, as a value naming the rule, a symlink or special file in
 * anything copied, a secret-like name, and any file, count, total or path past the limits; skips VCS, test, doc,
 * node_modules and __pycache__ folders; ignores everything else at the root. Files land 0444 (0555 when executable),
 * directories 0555. Throws PluginSnapshotError for a malformed request, an existing `destDir`, or I/O failure.
 */
export async function snapshotPlugin(request: SnapshotPluginRequest): Promise<SnapshotPluginResult> {
  const parsed = RequestSchema.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PluginSnapshotError("PLUGIN_SNAPSHOT_BAD_REQUEST", `snapshotPlugin: ${issue?.path.join(".") ?? "request"} ${issue?.message ?? "is invalid"}`);
  }
  const { pluginDir, expectedVersion, destDir } = parsed.data;
  const walk: Walk = { root: pluginDir, limits: parsed.data.limits ?? DEFAULT_PLUGIN_LIMITS, files: [], directories: [], skipped: [], totalBytes: 0 };
  let manifest: z.infer<typeof ManifestSchema>;
  try {
    manifest = await collect(walk, expectedVersion);
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: error.refusal };
    throw error;
  }
  walk.files.sort((a, b) => compareCodePoints(a.path, b.path));
  const files: PluginFile[] = walk.files.map((file) => ({
    path: file.path,
    sha256: sha256Hex(file.data),
    size: file.data.byteLength,
    executable: file.executable,
  }));
  const manifestDigest = digestJson({ files, schema_version: PLUGIN_MANIFEST_SCHEMA_VERSION });
  await writeSnapshot(destDir, walk, files);
  return {
    ok: true,
    value: {
      path: destDir,
      name: CE_PLUGIN_NAME,
      version: manifest.version,
      files,
      totalBytes: walk.totalBytes,
      skipped: walk.skipped.sort(compareCodePoints),
      manifestDigest,
      provenance: {
        name: CE_PLUGIN_NAME,
        version: manifest.version,
        manifest_schema_version: PLUGIN_MANIFEST_SCHEMA_VERSION,
        manifest_digest: manifestDigest,
        file_count: files.length,
        total_bytes: walk.totalBytes,
      },
    },
  };
}

async function collect(walk: Walk, expectedVersion: string): Promise<z.infer<typeof ManifestSchema>> {
  const top = await list(walk, "");
  const byName = new Map(top.map((entry) => [entry.name, entry]));
  const pluginMeta = byName.get(".claude-plugin");
  if (pluginMeta === undefined) refuse("manifest-missing", MANIFEST_PATH, "the plugin has no .claude-plugin/ folder; point --ce-plugin-dir at the plugin root");
  if (pluginMeta.isSymbolicLink()) refuse("symlink", ".claude-plugin", "is a symlink; copy the real folder into the plugin");
  if (!pluginMeta.isDirectory()) refuse("manifest-missing", ".claude-plugin", "is not a directory");
  const meta = new Map((await list(walk, ".claude-plugin")).map((entry) => [`.claude-plugin/${entry.name}`, entry]));
  const manifestEntry = meta.get(MANIFEST_PATH);
  if (manifestEntry === undefined) refuse("manifest-missing", MANIFEST_PATH, "is missing");
  await collectFile(walk, MANIFEST_PATH, manifestEntry);
  const manifest = parseManifest(walk.files[walk.files.length - 1]?.data ?? Buffer.alloc(0));
  if (manifest.name !== CE_PLUGIN_NAME) {
    refuse("wrong-name", MANIFEST_PATH, `name is ${JSON.stringify(manifest.name)}, expected ${JSON.stringify(CE_PLUGIN_NAME)}; this is not the Compound Engineering plugin`);
  }
  if (manifest.version !== expectedVersion) {
    refuse("wrong-version", MANIFEST_PATH, `version is ${JSON.stringify(manifest.version)} but --ce-plugin-version is ${JSON.stringify(expectedVersion)}; pass the version the plugin declares or check out that release`);
  }
  const marketplace = meta.get(MARKETPLACE_PATH);
  if (marketplace !== undefined) await collectFile(walk, MARKETPLACE_PATH, marketplace);
  for (const tree of COPIED_TREES) {
    const entry = byName.get(tree);
    if (entry === undefined) {
      if (tree === "skills") refuse("skills-missing", "skills", "the plugin has no skills/ folder");
      continue;
    }
    await collectEntry(walk, tree, entry);
  }
  const present = new Set(walk.files.map((file) => file.path));
  for (const skill of REQUIRED_CE_SKILLS) {
    const path = `skills/${skill}/SKILL.md`;
    if (!present.has(path)) refuse("required-skill-missing", path, `the CE arms need skill ${skill}; is this a Compound Engineering release?`);
  }
  return manifest;
}

function parseManifest(data: Buffer): z.infer<typeof ManifestSchema> {
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    refuse("manifest-invalid", MANIFEST_PATH, "is not valid JSON");
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) refuse("manifest-invalid", MANIFEST_PATH, "must be a JSON object with string fields name and version");
  return parsed.data;
}

async function collectEntry(walk: Walk, path: string, entry: Dirent): Promise<void> {
  checkPath(walk, path);
  if (entry.isSymbolicLink()) refuse("symlink", path, "symlinks are never copied into a plugin snapshot; replace it with the file or folder it points to");
  if (isSecretLike(entry.name)) refuse("secret-like", path, "the name looks like a credential (secret, token, key, .env, …); remove it from the plugin");
  if (entry.isDirectory()) {
    walk.directories.push(path);
    for (const child of await list(walk, path)) {
      const childPath = `${path}/${child.name}`;
      if (isSkippedPart(child.name)) {
        walk.skipped.push(childPath);
        continue;
      }
      await collectEntry(walk, childPath, child);
    }
    return;
  }
  await collectFile(walk, path, entry);
}

function checkPath(walk: Walk, path: string): void {
  if (Buffer.byteLength(path, "utf8") > walk.limits.maxPathBytes) {
    refuse("path-too-long", path.slice(0, 120), `path is longer than ${walk.limits.maxPathBytes} bytes`);
  }
}

async function collectFile(walk: Walk, path: string, entry: Dirent): Promise<void> {
  checkPath(walk, path);
  if (entry.isSymbolicLink()) refuse("symlink", path, "symlinks are never copied into a plugin snapshot; replace it with the file it points to");
  if (!entry.isFile()) refuse("special-file", path, "is not a regular file or directory");
  if (walk.files.length + 1 > walk.limits.maxFiles) refuse("too-many-files", path, `the plugin has more than ${walk.limits.maxFiles} files to copy`);
  let handle;
  try {
    handle = await openUnderRoot(walk.root, path, "file");
  } catch (error) {
    // Listed as a regular file a moment ago; a link or non-file now means the tree is being changed under us.
    if (isDurableFsError(error) && error.code === "DURABLE_FS_NOT_FOLLOWED") {
      throw new PluginSnapshotError("PLUGIN_SNAPSHOT_MUTATED", `${path} changed while the plugin was copied`, { cause: error });
    }
    throw new PluginSnapshotError("PLUGIN_SNAPSHOT_IO", `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const before = await handle.stat();
    if (before.size > walk.limits.maxFileBytes) refuse("file-too-large", path, `${before.size} bytes is over the ${walk.limits.maxFileBytes}-byte limit per file`);
    if (walk.totalBytes + before.size > walk.limits.maxTotalBytes) refuse("total-too-large", path, `the copied files exceed ${walk.limits.maxTotalBytes} bytes in total`);
    // One byte of headroom: a file growing during the read is caught instead of silently truncated.
    const buffer = Buffer.alloc(before.size + 1);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
      if (bytesRead === 0 || offset + bytesRead > before.size) {
        offset += bytesRead;
        break;
      }
      offset += bytesRead;
    }
    const after = await handle.stat();
    if (offset !== before.size || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new PluginSnapshotError("PLUGIN_SNAPSHOT_MUTATED", `${path} changed while it was read`);
    }
    walk.totalBytes += offset;
    walk.files.push({ path, data: buffer.subarray(0, offset), executable: (before.mode & 0o111) !== 0 });
  } finally {
    await handle.close();
  }
}

async function list(walk: Walk, path: string): Promise<Dirent[]> {
  try {
    return await listUnderRoot(walk.root, path);
  } catch (error) {
    if (isDurableFsError(error) && error.code === "DURABLE_FS_NOT_FOLLOWED") {
      if (path === "") refuse("plugin-dir", null, `${walk.root} is not a real directory (a symlink or a file); pass the plugin's own folder`);
      throw new PluginSnapshotError("PLUGIN_SNAPSHOT_MUTATED", `${path} changed while the plugin was copied`, { cause: error });
    }
    if (path === "" && isDurableFsError(error) && error.errno === "ENOENT") refuse("plugin-dir", null, `${walk.root} does not exist`);
    throw new PluginSnapshotError("PLUGIN_SNAPSHOT_IO", `cannot list ${path === "" ? walk.root : path}: ${(error as Error).message}`, { cause: error });
  }
}

async function writeSnapshot(destDir: string, walk: Walk, files: readonly PluginFile[]): Promise<void> {
  try {
    await mkdir(destDir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new PluginSnapshotError("PLUGIN_SNAPSHOT_DEST_EXISTS", `${destDir} already exists; a snapshot is only written into a fresh directory`, { cause: error });
    throw new PluginSnapshotError("PLUGIN_SNAPSHOT_IO", `cannot create ${destDir}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const directories = [".claude-plugin", ...walk.directories];
    for (const dir of directories) await mkdir(join(destDir, dir), { mode: 0o700 });
    for (const [index, file] of files.entries()) {
      const target = join(destDir, file.path);
      await writeFile(target, walk.files[index]?.data ?? Buffer.alloc(0), { flag: "wx", mode: 0o600 });
      await chmod(target, file.executable ? 0o555 : 0o444);
    }
    // Deepest first, so each directory is still writable while its children are frozen.
    for (const dir of directories.sort((a, b) => b.length - a.length)) await chmod(join(destDir, dir), 0o555);
    await chmod(destDir, 0o555);
  } catch (error) {
    await removeTree(destDir).catch(() => undefined);
    throw new PluginSnapshotError("PLUGIN_SNAPSHOT_IO", `cannot write the plugin snapshot to ${destDir}: ${(error as Error).message}`, { cause: error });
  }
}

/** Remove a snapshot written by snapshotPlugin (its directories are 0555); trusts `path` to be one. */
export async function removePluginSnapshot(path: string): Promise<void> {
  await removeTree(path);
}
