/** Python's posixpath.normpath on a string: purely lexical, trusts nothing, never touches the filesystem. */
export function normpathPosix(path: string): string {
  if (path === "") return ".";
  let initialSlashes = path.startsWith("/") ? 1 : 0;
  // POSIX keeps exactly two leading slashes (implementation-defined root); three or more collapse to one.
  if (initialSlashes === 1 && path.startsWith("//") && !path.startsWith("///")) initialSlashes = 2;
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== ".." || (initialSlashes === 0 && parts.length === 0) || parts[parts.length - 1] === "..") {
      parts.push(part);
    } else if (parts.length > 0) {
      parts.pop();
    }
  }
  const joined = "/".repeat(initialSlashes) + parts.join("/");
  return joined === "" ? "." : joined;
}

/** Outcome of normalising a model- or label-supplied path. */
export type RepoPathResult = { ok: true; path: string } | { ok: false; normalized: string };

/** Backslashes to `/`, then normpath; refuses anything absolute, `.`/`..`, or escaping through `../`. */
export function normalizeRepoPath(raw: string): RepoPathResult {
  const normalized = normpathPosix(raw.replaceAll("\\", "/"));
  if (normalized.startsWith("/") || normalized === "." || normalized === ".." || normalized.startsWith("../")) {
    return { ok: false, normalized };
  }
  return { ok: true, path: normalized };
}
