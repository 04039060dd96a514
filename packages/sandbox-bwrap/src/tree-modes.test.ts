import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockTreeReadOnly } from "./tree-modes.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    try {
      chmodSync(d, 0o700);
    } catch {
      // already removed
    }
    rmSync(d, { recursive: true, force: true });
  }
});
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), "wfbench-modes-"));
  dirs.push(root);
  mkdirSync(join(root, "a/b"), { recursive: true });
  writeFileSync(join(root, "a/b/f.txt"), "x", { mode: 0o640 });
  writeFileSync(join(root, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
  return root;
}
const mode = (p: string): number => statSync(p).mode & 0o777;

describe("lockTreeReadOnly", () => {
  it("sets directories to 0500, removes every write bit from files, and the returned function restores the exact modes", async () => {
    const root = tree();
    const outside = join(dirs[0] ?? root, "..", `wfbench-outside-${process.pid}`);
    writeFileSync(outside, "o", { mode: 0o644 });
    symlinkSync(outside, join(root, "link"));
    const before = [root, join(root, "a"), join(root, "a/b"), join(root, "a/b/f.txt"), join(root, "run.sh")].map(mode);
    const restore = await lockTreeReadOnly(root);
    // Spec §6.8: every directory becomes 0500; files only lose w.
    expect(mode(root)).toBe(0o500);
    expect(mode(join(root, "a/b"))).toBe(0o500);
    expect(mode(join(root, "a/b/f.txt"))).toBe(0o440);
    expect(mode(join(root, "run.sh"))).toBe(0o555);
    expect(mode(outside)).toBe(0o644);
    await restore();
    expect([root, join(root, "a"), join(root, "a/b"), join(root, "a/b/f.txt"), join(root, "run.sh")].map(mode)).toEqual(before);
    rmSync(outside);
  });
});
