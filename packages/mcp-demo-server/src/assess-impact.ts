import type { Reference } from "./find-references.js";

/** What changing a symbol touches: each file that mentions it, with its mention count, and which of them are tests. */
export interface Impact {
  readonly files: readonly { readonly path: string; readonly mentions: number; readonly test: boolean }[];
  readonly tests: readonly string[];
}

// A test file by the usual conventions: a test/tests/__tests__ directory, or a .test./.spec. name.
const TEST_PATH = /(?:^|\/)(?:tests?|__tests__)\/|\.(?:test|spec)\.[A-Za-z0-9]+$/u;

/** Groups references by file (path order kept) and names the test files a change to the symbol should re-run. */
export function assessImpact(references: readonly Reference[]): Impact {
  const counts = new Map<string, number>();
  for (const ref of references) counts.set(ref.path, (counts.get(ref.path) ?? 0) + 1);
  const files = [...counts].map(([path, mentions]) => ({ path, mentions, test: TEST_PATH.test(path) }));
  return { files, tests: files.filter((file) => file.test).map((file) => file.path) };
}
