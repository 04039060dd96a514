import { hasLoneSurrogate, isBlankPython, utf8ByteLength } from "./python-text.js";

/** Which rule refused a relative path; stable, so callers can map it to their own rule names. */
export type RelativePathRule = "blank" | "nul" | "backslash" | "not-unicode" | "absolute" | "too-long" | "bad-part" | "under-git";

/** A refused path: the rule and a message that completes "<field> …". */
export interface RelativePathProblem {
  readonly rule: RelativePathRule;
  readonly message: string;
}

/** Longest relative path accepted unless a caller asks for less (bytes, UTF-8), as the task-asset limit. */
export const DEFAULT_MAX_PATH_BYTES = 4096;

/** How `.git` names are treated. Case is ignored throughout: case-insensitive filesystems exist. */
export type GitPathRule =
  /** `.git` is an ordinary name (read-only mounts may want to cover it). */
  | "allow"
  /** the first part may not be `.git`: repository paths must not reach the repository's own metadata. */
  | "refuse-first-part"
  /** reference §3.1 oracle rule: no path starting with `.git` (so `.github/` and `.gitignore` too), no `.git` part. */
  | "refuse-prefix-and-any-part";

/** Options of {@link checkRelativePath}; every caller's intentional difference is one of these. */
export interface RelativePathOptions {
  /** Longest accepted path in UTF-8 bytes; default 4096. */
  readonly maxBytes?: number;
  /** Default "refuse-first-part". */
  readonly git?: GitPathRule;
}

/**
 * The one relative-path validator: a posix path, relative, without NUL, backslash, lone surrogate, empty / `.` / `..`
 * parts, not blank (Python strip), at most `maxBytes` UTF-8 bytes, and `.git` per `options.git`. Checks only the
 * string, never the disk. Returns the first rule broken, or null.
 */
export function checkRelativePath(path: string, options: RelativePathOptions = {}): RelativePathProblem | null {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PATH_BYTES;
  if (path.includes("\0")) return { rule: "nul", message: "must not contain a NUL byte" };
  if (path.includes("\\")) return { rule: "backslash", message: "must use '/' separators, never a backslash" };
  if (hasLoneSurrogate(path)) return { rule: "not-unicode", message: "must be valid Unicode (no lone surrogate)" };
  if (path.startsWith("/")) return { rule: "absolute", message: "must be relative, not absolute" };
  if (utf8ByteLength(path) > maxBytes) return { rule: "too-long", message: `must be at most ${maxBytes} bytes` };
  const parts = path.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) return { rule: "bad-part", message: "must not have empty, '.' or '..' parts" };
  // After the part rule, so "" stays an empty part; a path of whitespace alone names nothing anyone meant.
  if (isBlankPython(path)) return { rule: "blank", message: "must be a non-blank path" };
  const git = options.git ?? "refuse-first-part";
  const lower = parts.map((part) => part.toLowerCase());
  if (git === "refuse-first-part" && lower[0] === ".git") return { rule: "under-git", message: "must not point into .git" };
  if (git === "refuse-prefix-and-any-part" && (path.toLowerCase().startsWith(".git") || lower.includes(".git"))) {
    return { rule: "under-git", message: "must not start with .git or lie under a .git directory" };
  }
  return null;
}
