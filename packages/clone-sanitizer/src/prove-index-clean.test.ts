import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { proveIndexClean } from "./prove-index-clean.js";

const roots: string[] = [];
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "index-clean-"));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("proveIndexClean", () => {
  it("digests a clean tree by content, independent of where it lies", async () => {
    const a = await proveIndexClean(tree({ "graph/nodes.json": "[1,2]", "meta.json": "{}" }));
    const b = await proveIndexClean(tree({ "meta.json": "{}", "graph/nodes.json": "[1,2]" }));
    const c = await proveIndexClean(tree({ "meta.json": "{}", "graph/nodes.json": "[1,3]" }));
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (!a.ok || !b.ok || !c.ok) return;
    expect(a.value).toEqual(b.value);
    expect(a.value).toMatchObject({ files: 2, bytes: 7 });
    expect(a.value.manifestDigest).toMatch(/^[0-9a-f]{64}$/u);
    expect(c.value.manifestDigest).not.toBe(a.value.manifestDigest);
  });

  it.each([
    ["a marker in a file's bytes", { "refs.txt": "see /x/.wfbench-oracle-1234/hidden" }, /refs\.txt: the content carries the harness marker "wfbench-oracle"/u],
    ["a marker in a path", { "eval/workflow_bench/a.txt": "x" }, /eval\/workflow_bench: the path carries/u],
    ["an oracle test name", { "files.json": '["clamp.oracle.test.mjs"]' }, /"\.oracle\.test\."/u],
  ])("refuses %s", async (_name, files, message) => {
    const result = await proveIndexClean(tree(files));
    expect(!result.ok && result.error).toMatch(message);
  });

  it("refuses a caller's extra marker, and a link or special file", async () => {
    expect(await proveIndexClean(tree({ "a.txt": "ORACLE-SECRET-9" }), ["ORACLE-SECRET"])).toMatchObject({ ok: false });
    const root = tree({ "a.txt": "x" });
    symlinkSync("/etc/passwd", join(root, "link"));
    const linked = await proveIndexClean(root);
    expect(!linked.ok && linked.error).toMatch(/link: not a regular file or directory/u);
  });
});
