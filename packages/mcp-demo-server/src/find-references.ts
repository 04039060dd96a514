import type { Dirent } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { constants } from "node:fs";
import { join } from "node:path";

/** Bounds of one search: the demo repository is small, and a hostile workspace must not make the server unbounded. */
export interface SearchLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxResults: number;
}

/** Enough for a demo repository; a file over 512 KiB is not source worth scanning. */
export const DEFAULT_SEARCH_LIMITS: SearchLimits = { maxFiles: 5000, maxFileBytes: 512 * 1024, maxResults: 200 };

/** One line that mentions the symbol as a whole word. */
export interface Reference {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

// Never looked into: VCS data, installed dependencies, and the harness's oracle stages.
const SKIPPED = new Set([".git", "node_modules"]);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,127}$/u;

/** True for a name the tool searches for (a JavaScript-like identifier, at most 128 characters). */
export function isSearchableSymbol(symbol: string): boolean {
  return IDENTIFIER.test(symbol);
}

/**
 * Every whole-word mention of `symbol` under `root`, as root-relative posix paths with 1-based lines, in path order.
 * Trusts `root` itself; never follows a symlink (links are skipped), skips `.git`, `node_modules` and
 * `.wfbench-oracle-*`, reads regular files only (no-follow), skips binary (NUL-holding) and oversize files, and stops
 * at the limits (`truncated`). Refuses a symbol that is not an identifier by throwing a TypeError.
 */
export async function findReferences(root: string, symbol: string, limits: SearchLimits = DEFAULT_SEARCH_LIMITS): Promise<{ references: Reference[]; truncated: boolean }> {
  if (!isSearchableSymbol(symbol)) throw new TypeError(`symbol must be an identifier ([A-Za-z_$][A-Za-z0-9_$]*), got ${JSON.stringify(symbol.slice(0, 40))}`);
  const pattern = new RegExp(`(?<![A-Za-z0-9_$])${symbol.replace(/\$/gu, "\\$")}(?![A-Za-z0-9_$])`, "u");
  const references: Reference[] = [];
  let files = 0;
  let truncated = false;
  const walk = async (rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated) return;
      if (SKIPPED.has(entry.name) || entry.name.startsWith(".wfbench-oracle-")) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        files += 1;
        if (files > limits.maxFiles) {
          truncated = true;
          return;
        }
        const text = await readSmallText(join(root, path), limits.maxFileBytes);
        if (text === null) continue;
        for (const [index, line] of text.split("\n").entries()) {
          if (!pattern.test(line)) continue;
          if (references.length >= limits.maxResults) {
            truncated = true;
            return;
          }
          references.push({ path, line: index + 1, text: line.trim().slice(0, 200) });
        }
      }
    }
  };
  await walk("");
  return { references, truncated };
}

async function readSmallText(path: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxBytes) return null;
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    const data = buffer.subarray(0, bytesRead);
    return data.includes(0) ? null : data.toString("utf8");
  } finally {
    await handle.close();
  }
}
