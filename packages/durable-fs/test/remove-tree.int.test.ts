// removeTree tries Node's fs.rm, then GNU find and rm: the cases here are the trees an agent can leave behind that
// fs.rm alone cannot remove (unwritable directories for a non-root owner, a chain deeper than PATH_MAX), and a mount
// inside the tree, which neither may cross.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTree } from "../src/remove-tree.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTree(dir).catch(() => spawnSync("rm", ["-rf", dir]));
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "durable-fs-rm-"));
  dirs.push(dir);
  return dir;
}
function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

// 250 × 21 bytes: well past Linux's PATH_MAX (4096), built with relative mkdir/cd in bash (dash cannot cd that deep).
const LINK = "d".repeat(20);
const DEPTH = 250;
function buildDeepChain(root: string, uid?: number): string {
  const script = `cd "$1" && for i in $(seq 1 ${DEPTH}); do mkdir ${LINK} && cd ${LINK} || exit 1; done; mkdir -p locked/inner && echo x > locked/inner/f && chmod 555 locked/inner locked && chmod 000 ../${LINK}`;
  const built = spawnSync("/bin/bash", ["-c", script, "bash", root], { encoding: "utf8", ...(uid === undefined ? {} : { uid, gid: uid }) });
  expect(built.status, built.stderr).toBe(0);
  return join(root, `${LINK}/`.repeat(DEPTH), "locked");
}

describe("removeTree", () => {
  it("removes a tree of 0555 directories, a 0000 directory and 0444 files", async () => {
    const root = join(scratch(), "cell");
    writeFiles(root, { "a/b/c.txt": "x", "a/d.txt": "y", "e/f.txt": "z" });
    chmodSync(join(root, "a/b/c.txt"), 0o444);
    chmodSync(join(root, "e"), 0o000);
    for (const dir of ["a/b", "a", "."]) chmodSync(join(root, dir), 0o555);
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
  });

  it("removes a directory chain deeper than PATH_MAX, where Node's fs.rm fails", async () => {
    const base = scratch();
    const root = join(base, "chain");
    mkdirSync(root);
    const deepest = buildDeepChain(root);
    expect(Buffer.byteLength(deepest)).toBeGreaterThan(4096);
    await expect(rm(root, { recursive: true, force: true })).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
  });

  it("never follows a symlink out of the tree, and leaves the target's files and modes alone", async () => {
    const base = scratch();
    const outside = join(base, "outside");
    writeFiles(outside, { "keep.txt": "keep" });
    chmodSync(outside, 0o555);
    const root = join(base, "cell");
    writeFiles(root, { "a/x": "1" });
    symlinkSync(outside, join(root, "a/link"));
    symlinkSync(outside, join(base, "root-link"));
    await removeTree(root);
    await removeTree(join(base, "root-link"));
    expect(existsSync(root) || existsSync(join(base, "root-link"))).toBe(false);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("keep");
    expect(statSync(outside).mode & 0o777).toBe(0o555);
    chmodSync(outside, 0o755);
  });

  it("accepts a missing path and removes a plain file", async () => {
    const base = scratch();
    await expect(removeTree(join(base, "does-not-exist"))).resolves.toBeUndefined();
    writeFileSync(join(base, "f"), "x");
    await removeTree(join(base, "f"));
    expect(existsSync(join(base, "f"))).toBe(false);
  });

  it("refuses relative paths and the root directory", async () => {
    await expect(removeTree("relative/path")).rejects.toMatchObject({ code: "DURABLE_FS_REMOVE_FAILED" });
    await expect(removeTree("/")).rejects.toMatchObject({ code: "DURABLE_FS_REMOVE_FAILED" });
    await expect(removeTree("/tmp/..")).rejects.toMatchObject({ code: "DURABLE_FS_REMOVE_FAILED" });
  });

  // Needs root to mount; a non-root run reports a skip instead of a vacuous pass, except under CI, where it fails.
  it.skipIf(process.getuid?.() !== 0 && process.env["CI"] !== "true")("never crosses into a mount inside the tree: its files stay and the removal fails naming it", async () => {
    const root = join(scratch(), "cell");
    writeFiles(root, { "a/x": "1", "b/y": "2" });
    const mountPoint = join(root, "a", "mounted");
    mkdirSync(mountPoint);
    const mounted = spawnSync("mount", ["-t", "tmpfs", "wfbench-test", mountPoint], { encoding: "utf8" });
    expect(mounted.status, mounted.stderr).toBe(0);
    try {
      writeFileSync(join(mountPoint, "keep.txt"), "keep");
      await expect(removeTree(root)).rejects.toMatchObject({ code: "DURABLE_FS_REMOVE_FAILED", message: expect.stringContaining("mounted") });
      expect(readFileSync(join(mountPoint, "keep.txt"), "utf8")).toBe("keep");
      expect(existsSync(join(root, "b"))).toBe(false);
    } finally {
      spawnSync("umount", [mountPoint]);
    }
  });

  // Needs root to hand the tree to another uid; a non-root run reports a skip instead of a vacuous pass, except under
  // CI, where it fails.
  it.skipIf(process.getuid?.() !== 0 && process.env["CI"] !== "true")("works for a non-root owner, who cannot unlink inside 0555 directories or below PATH_MAX without it", () => {
    const base = scratch();
    chmodSync(base, 0o777);
    const root = join(base, "cell");
    writeFiles(root, { "a/b/c.txt": "x" });
    cpSync(join(root, "a"), join(root, "copy"), { recursive: true });
    spawnSync("chown", ["-R", "65534:65534", root]);
    for (const dir of ["a/b", "a", "copy"]) chmodSync(join(root, dir), 0o555);
    chmodSync(join(root, "copy/b"), 0o000);
    buildDeepChain(root, 65534);
    const plainRm = spawnSync("rm", ["-rf", join(root, "a")], { uid: 65534, gid: 65534 });
    expect(plainRm.status).not.toBe(0);
    const module = JSON.stringify(join(import.meta.dirname, "..", "src", "remove-tree.ts"));
    const script = `import(${module}).then((m) => m.removeTree(${JSON.stringify(root)})).catch((e) => { console.error(e); process.exit(1); });`;
    const tsx = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
    const ours = spawnSync(tsx, ["--eval", script], {
      uid: 65534,
      gid: 65534,
      cwd: base,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: base, TMPDIR: base },
      encoding: "utf8",
    });
    expect(ours.stderr).toBe("");
    expect(existsSync(root)).toBe(false);
  });
});
