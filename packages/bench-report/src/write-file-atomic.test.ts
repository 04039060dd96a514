import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./write-file-atomic.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("replaces the file's bytes and leaves no temp file behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atomic-"));
    dirs.push(dir);
    const path = join(dir, "report.md");
    writeFileSync(path, "old");
    const before = statSync(path).ino;
    await writeFileAtomic(path, "# new\n");
    expect(readFileSync(path, "utf8")).toBe("# new\n");
    expect(statSync(path).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(["report.md"]);
  });

  it("throws BENCH_REPORT_WRITE_FAILED and leaves nothing when the directory is missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atomic-"));
    dirs.push(dir);
    await expect(writeFileAtomic(join(dir, "missing", "report.md"), "x")).rejects.toMatchObject({ code: "BENCH_REPORT_WRITE_FAILED" });
    expect(readdirSync(dir)).toEqual([]);
  });
});
