import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic, writeFileExclusive, writeFileExclusiveSync } from "./write-file.js";
import { fsyncDirectory, fsyncDirectorySync } from "./fsync.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "durable-fs-write-"));
  dirs.push(dir);
  return dir;
}

describe("writeFileAtomic", () => {
  it("replaces the file's bytes with a new inode at the exact mode and leaves no temp file behind", async () => {
    const dir = tempDir();
    const path = join(dir, "report.md");
    writeFileSync(path, "old");
    const before = statSync(path).ino;
    const umask = process.umask(0o077);
    try {
      await writeFileAtomic(path, "# new\n", { mode: 0o644 });
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(path, "utf8")).toBe("# new\n");
    expect(statSync(path).ino).not.toBe(before);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(["report.md"]);
  });

  it("throws DURABLE_FS_WRITE_FAILED and leaves nothing when the directory is missing", async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(join(dir, "missing", "report.md"), "x")).rejects.toMatchObject({ code: "DURABLE_FS_WRITE_FAILED" });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("writeFileExclusive", () => {
  it("creates a new file (mode 0600 by default) and refuses an existing name or a planted link", async () => {
    const dir = tempDir();
    const path = join(dir, "a.patch");
    await writeFileExclusive(path, Buffer.from([1, 2, 3]));
    expect(readFileSync(path)).toEqual(Buffer.from([1, 2, 3]));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(writeFileExclusive(path, "again")).rejects.toMatchObject({ code: "DURABLE_FS_EXISTS" });
    expect(readFileSync(path)).toEqual(Buffer.from([1, 2, 3]));
    const outside = join(dir, "outside");
    symlinkSync(outside, join(dir, "link"));
    await expect(writeFileExclusive(join(dir, "link"), "x")).rejects.toMatchObject({ code: "DURABLE_FS_EXISTS" });
    expect(readdirSync(dir).sort()).toEqual(["a.patch", "link"]);
  });

  it("has a synchronous twin that throws the filesystem error itself", () => {
    const dir = tempDir();
    const path = join(dir, "staged");
    writeFileExclusiveSync(path, Buffer.from("x"), { mode: 0o640, syncDirectory: false });
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(() => writeFileExclusiveSync(path, Buffer.from("y"))).toThrow(expect.objectContaining({ code: "EEXIST" }) as Error);
    expect(readFileSync(path, "utf8")).toBe("x");
  });
});

describe("fsyncDirectory", () => {
  it("syncs a directory and refuses a file", async () => {
    const dir = tempDir();
    await fsyncDirectory(dir);
    fsyncDirectorySync(dir);
    writeFileSync(join(dir, "f"), "");
    await expect(fsyncDirectory(join(dir, "f"))).rejects.toMatchObject({ code: "ENOTDIR" });
  });
});
