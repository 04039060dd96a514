import { isAbsolute, relative, sep } from "node:path";

/**
 * True when `path` is `root` itself or lies under it, compared lexically on the absolute paths given (resolve links
 * first where they matter). A sibling whose name merely starts with `..` (`<root>/..cache`) is inside; `<root>/../x`
 * and another drive or root are not.
 */
export function isPathWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
