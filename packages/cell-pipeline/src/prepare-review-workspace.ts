import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rmdir, unlink } from "node:fs/promises";
import { posix } from "node:path";
import { compareCodePoints } from "@wfbench/digest";
import { isDurableFsError, openUnderRoot, writeFileExclusive } from "@wfbench/durable-fs";
import { CellPipelineError } from "./errors.js";

/**
 * Workspace entries Claude Code's scrubber and nested sandbox bind-mount in a review session even when they are
 * absent (reference §6.5, measured on 2.1.214): a bind needs its target to exist, and a read-only workspace cannot
 * grow one once sealed, so each absent one is created first. Directories, then files, in the reference's order.
 */
export const REVIEW_PLACEHOLDER_DIRECTORIES = [".git/hooks", ".git/info", ".git/modules", ".git/worktrees", ".claude/commands", ".claude/agents", "node_modules/.bin", ".github", "scripts", ".vscode", ".idea"] as const;
/** The file placeholders (reference §6.5); `.git/commondir` and `.mcp.json` get content, the others stay empty. */
export const REVIEW_PLACEHOLDER_FILES = [
  "bunfig.toml", ".mcp.json", "package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".gitmodules", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
  ".env", ".env.local", ".env.development", ".env.development.local", ".env.test", ".env.test.local", ".env.production", ".env.production.local",
  ".git/config", ".git/config.lock", ".git/config.worktree", ".git/config.worktree.lock", ".git/info/exclude",
  ".gitconfig", ".bash_profile", ".bashrc", ".profile", ".ripgreprc", ".zprofile", ".zshrc", ".git/commondir",
] as const;
/** Where the list of created paths is kept, under the cell's private root (never in the workspace). */
export const REVIEW_CREATED_PATHS_FILE = "review-created-paths.json";

const PLACEHOLDER_CONTENT: Readonly<Record<string, string>> = { ".git/commondir": ".\n", ".mcp.json": "{}\n" };
// The git-excludes file is written last, once the other names are known: the session's git then hides them.
const EXCLUDES = ".git/info/exclude";

/** What prepareReviewWorkspace created, in creation order (parents first). */
export interface ReviewPlaceholders {
  readonly created: readonly { readonly path: string; readonly kind: "directory" | "file"; readonly bytes: number }[];
}

function entryPath(handle: { fd: number }, name: string): string {
  return `/proc/self/fd/${handle.fd}/${name}`;
}

function refused(path: string, why: string, cause?: unknown): CellPipelineError {
  return new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `review workspace placeholder ${path}: ${why}: a review workspace must hold real files and directories there`, cause === undefined ? undefined : { cause });
}

async function openParent(workspace: string, parent: string, path: string): Promise<Awaited<ReturnType<typeof openUnderRoot>>> {
  try {
    return await openUnderRoot(workspace, parent, "directory");
  } catch (error) {
    if (isDurableFsError(error) && error.code === "DURABLE_FS_NOT_FOLLOWED") throw refused(path, "a link or non-directory on the way", error);
    throw error;
  }
}

/** Creates `path` when absent (parents too), no-follow and relative to its opened parent, and records what it created. */
async function ensure(workspace: string, path: string, kind: "directory" | "file", content: string, created: ReviewPlaceholders["created"][number][]): Promise<void> {
  const parent = posix.dirname(path);
  if (parent !== ".") await ensure(workspace, parent, "directory", "", created);
  const handle = await openParent(workspace, parent === "." ? "" : parent, path);
  try {
    const at = entryPath(handle, posix.basename(path));
    const existing = await lstat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (existing !== null) {
      // A pre-existing entry is left exactly as it is (never truncated); a link would send the bind elsewhere.
      if (existing.isSymbolicLink()) throw refused(path, "is a symlink");
      if (kind === "directory" && !existing.isDirectory()) throw refused(path, "is not a directory");
      return;
    }
    if (kind === "directory") await mkdir(at, { mode: 0o755 });
    else {
      const file = await open(at, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      try {
        if (content !== "") await file.writeFile(content, "utf8");
      } finally {
        await file.close();
      }
    }
    created.push({ path, kind, bytes: Buffer.byteLength(content, "utf8") });
  } finally {
    await handle.close();
  }
}

/**
 * Reference §6.5 (bwrap review sessions only): creates every absent placeholder entry of the review workspace with
 * no-follow, fd-relative operations, writes `.git/info/exclude` (when absent) with each created name as `/name` so
 * the session's git does not list them as local changes, and records the list in `<privateRoot>/review-created-paths.json`.
 * Trusts the workspace root itself; never truncates or replaces an existing entry.
 * @throws {CellPipelineError} CELL_PIPELINE_WORKSPACE_FAILED when an entry or a parent is a link or the wrong kind.
 */
export async function prepareReviewWorkspace(workspace: string, privateRoot: string): Promise<ReviewPlaceholders> {
  const created: ReviewPlaceholders["created"][number][] = [];
  for (const path of REVIEW_PLACEHOLDER_DIRECTORIES) await ensure(workspace, path, "directory", "", created);
  for (const path of REVIEW_PLACEHOLDER_FILES) if (path !== EXCLUDES) await ensure(workspace, path, "file", PLACEHOLDER_CONTENT[path] ?? "", created);
  const names = [...created.map((entry) => entry.path), EXCLUDES].filter((path) => !path.startsWith(".git/"));
  await ensure(workspace, EXCLUDES, "file", names.map((path) => `/${path}\n`).join(""), created);
  await writeFileExclusive(posix.join(privateRoot, REVIEW_CREATED_PATHS_FILE), `${JSON.stringify(created.map((entry) => entry.path))}\n`, { mode: 0o600 });
  return { created };
}

/**
 * Removes the placeholders outside `.git` after the review session (the workspace's `.git` is replaced before
 * measuring anyway), deepest first, so churn and the patch see the workspace the task left. Removes an entry only if it
 * is still what was created (an empty directory, or a regular file of the written size); anything else stays, and the
 * phase check has already judged it.
 */
export async function removeReviewPlaceholders(workspace: string, placeholders: ReviewPlaceholders): Promise<void> {
  const outside = placeholders.created.filter((entry) => !entry.path.startsWith(".git/") && entry.path !== ".git");
  for (const entry of [...outside].sort((a, b) => compareCodePoints(b.path, a.path))) {
    const parent = posix.dirname(entry.path);
    let handle: Awaited<ReturnType<typeof openUnderRoot>>;
    try {
      handle = await openUnderRoot(workspace, parent === "." ? "" : parent, "directory");
    } catch {
      continue;
    }
    try {
      const at = entryPath(handle, posix.basename(entry.path));
      const now = await lstat(at).catch(() => null);
      if (now === null) continue;
      if (entry.kind === "file" && now.isFile() && now.size === entry.bytes) await unlink(at);
      else if (entry.kind === "directory" && now.isDirectory() && (await readdir(at)).length === 0) await rmdir(at);
    } finally {
      await handle.close();
    }
  }
}
