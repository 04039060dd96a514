import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listUnderRoot, openUnderRoot, readFileUnderRoot } from "./open-under-root.js";

const dirs: string[] = [];
function tree(): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), "under-root-"));
  dirs.push(base);
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(join(root, "docs", "plans"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "docs", "plans", "plan.md"), "# plan\n");
  writeFileSync(join(outside, "secret.md"), "host secret\n");
  return { root, outside };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("openUnderRoot / listUnderRoot / readFileUnderRoot", () => {
  it("reads and lists real entries below the root", async () => {
    const { root } = tree();
    expect((await readFileUnderRoot(root, "docs/plans/plan.md", 1024)).bytes.toString()).toBe("# plan\n");
    expect((await listUnderRoot(root, "docs/plans")).map((entry) => entry.name)).toEqual(["plan.md"]);
    expect((await listUnderRoot(root, "")).map((entry) => entry.name)).toEqual(["docs"]);
    await (await openUnderRoot(root, "docs", "directory")).close();
  });

  it("refuses a link in any component, not only the last (an agent-planted docs -> host directory)", async () => {
    const { root, outside } = tree();
    rmSync(join(root, "docs"), { recursive: true });
    symlinkSync(outside, join(root, "docs"));
    await expect(listUnderRoot(root, "docs")).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED", path: join(root, "docs") });
    await expect(readFileUnderRoot(root, "docs/secret.md", 1024)).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED", path: join(root, "docs") });
  });

  it("refuses a final link, a directory where a file is asked and a file on the way", async () => {
    const { root, outside } = tree();
    symlinkSync(join(outside, "secret.md"), join(root, "docs", "plans", "leak.md"));
    await expect(readFileUnderRoot(root, "docs/plans/leak.md", 1024)).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED", errno: "ELOOP" });
    await expect(readFileUnderRoot(root, "docs/plans", 1024)).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED" });
    await expect(listUnderRoot(root, "docs/plans/plan.md")).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED", errno: "ENOTDIR" });
  });

  it("lists a directory at its entry bound and refuses one entry more, naming the directory", async () => {
    const { root } = tree();
    for (let i = 0; i < 5; i += 1) writeFileSync(join(root, "docs", `n${i}.md`), "x");
    expect((await listUnderRoot(root, "docs", 6)).map((entry) => entry.name)).toEqual(["n0.md", "n1.md", "n2.md", "n3.md", "n4.md", "plans"]);
    await expect(listUnderRoot(root, "docs", 5)).rejects.toMatchObject({ code: "DURABLE_FS_TOO_LARGE", path: join(root, "docs") });
    await expect(listUnderRoot(root, "docs", 0)).rejects.toMatchObject({ code: "DURABLE_FS_TOO_LARGE" });
  });

  it("refuses a FIFO without blocking", async () => {
    const { root } = tree();
    execFileSync("mkfifo", [join(root, "docs", "plans", "pipe.md")]);
    await expect(readFileUnderRoot(root, "docs/plans/pipe.md", 1024)).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED" });
  });

  it("refuses parent, dot, empty and absolute parts before touching the disk", async () => {
    const { root } = tree();
    for (const bad of ["../outside", "docs/../..", "./docs", "docs//plans", "/etc"]) await expect(listUnderRoot(root, bad)).rejects.toMatchObject({ code: "DURABLE_FS_NOT_FOLLOWED" });
  });

  it("reports the hard-link count and refuses a file over the bound instead of truncating it", async () => {
    const { root, outside } = tree();
    linkSync(join(outside, "secret.md"), join(root, "docs", "plans", "linked.md"));
    expect((await readFileUnderRoot(root, "docs/plans/linked.md", 1024)).nlink).toBe(2);
    expect((await readFileUnderRoot(root, "docs/plans/plan.md", 1024)).nlink).toBe(1);
    await expect(readFileUnderRoot(root, "docs/plans/plan.md", 3)).rejects.toMatchObject({ code: "DURABLE_FS_TOO_LARGE" });
  });

  it("names a missing entry by its logical path with its errno", async () => {
    const { root } = tree();
    await expect(readFileUnderRoot(root, "docs/none.md", 10)).rejects.toMatchObject({ code: "DURABLE_FS_READ_FAILED", errno: "ENOENT", path: join(root, "docs", "none.md") });
  });
});
