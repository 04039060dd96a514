import { realpath } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isPathWithin } from "@wfbench/durable-fs";
import type { Result } from "./result.js";

/** A harness path a clone must not carry (an oracle root, a suite file or its directory) and the flag that named it. */
export interface HarnessPath {
  readonly path: string;
  readonly flag: string;
}

/**
 * The repo-relative posix paths of those `harness` paths that lie inside `repoRoot`, compared after realpath (a link
 * cannot hide one; a path that does not exist yet goes through its nearest existing parent), sorted, a path under another one dropped: the
 * template's hidden paths. Paths outside the repository are none of the clone's business. Refuses, as a message
 * naming the flag and the fix, a harness path that is the repository itself, which no clone can hide.
 */
export async function listHiddenHarnessPaths(repoRoot: string, harness: readonly HarnessPath[]): Promise<Result<string[], string>> {
  const root = await realpath(repoRoot);
  const hidden = new Set<string>();
  for (const { path, flag } of harness) {
    const real = await resolveReal(path);
    if (!isPathWithin(root, real)) continue;
    const rel = relative(root, real);
    if (rel === "") return { ok: false, error: `${flag} ${path} is the repository itself, which a clone cannot hide: keep it outside the repository or in a subdirectory of it` };
    hidden.add(rel.split(sep).join("/"));
  }
  const paths = [...hidden];
  return { ok: true, value: paths.filter((path) => !paths.some((other) => path.startsWith(`${other}/`))).sort() };
}

async function resolveReal(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await resolveReal(parent), basename(path));
  }
}
