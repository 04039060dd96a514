import { lstat } from "node:fs/promises";
import { join } from "node:path";

/** What lies at a repo-relative path, judged with lstat only. */
export type PathInspection =
  | { readonly kind: "absent" }
  | { readonly kind: "file" | "directory" | "symlink" | "special"; readonly mode: number; readonly size: number; readonly dev: number; readonly ino: number }
  | { readonly kind: "unsafe-parent"; readonly component: string; readonly reason: string };

/**
 * Inspect `rel` under `root` without following any symlink (lstat on every component, so a planted link anywhere on
 * the path is reported, never crossed); a non-directory parent component is reported too.
 */
export async function inspectRelativePath(root: string, rel: string): Promise<PathInspection> {
  const parts = rel.split("/");
  let current = root;
  for (let i = 0; i < parts.length; i += 1) {
    current = join(current, parts[i] ?? "");
    let stat;
    try {
      stat = await lstat(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return { kind: "absent" };
      if (code === "ENOTDIR") return { kind: "unsafe-parent", component: parts.slice(0, i).join("/"), reason: "is not a directory" };
      throw error;
    }
    const last = i === parts.length - 1;
    if (!last) {
      if (stat.isSymbolicLink()) return { kind: "unsafe-parent", component: parts.slice(0, i + 1).join("/"), reason: "is a symlink" };
      if (!stat.isDirectory()) return { kind: "unsafe-parent", component: parts.slice(0, i + 1).join("/"), reason: "is not a directory" };
      continue;
    }
    const facts = { mode: stat.mode, size: stat.size, dev: stat.dev, ino: stat.ino };
    if (stat.isSymbolicLink()) return { kind: "symlink", ...facts };
    if (stat.isDirectory()) return { kind: "directory", ...facts };
    if (stat.isFile()) return { kind: "file", ...facts };
    return { kind: "special", ...facts };
  }
  return { kind: "absent" };
}
