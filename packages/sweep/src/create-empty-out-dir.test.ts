import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmptyOutDir } from "./create-empty-out-dir.js";

describe("createEmptyOutDir", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "wfbench-out-dir-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("creates a new directory with its parents and accepts an existing empty one", async () => {
    await createEmptyOutDir(join(root, "a", "b"), "--out");
    expect(await readdir(join(root, "a", "b"))).toEqual([]);
    await createEmptyOutDir(join(root, "a", "b"), "--out");
  });

  it("refuses a non-empty directory as bad input and leaves it alone", async () => {
    await writeFile(join(root, "results.jsonl"), "{}\n");
    await expect(createEmptyOutDir(root, "--out")).rejects.toMatchObject({ code: "SWEEP_BAD_INPUT", message: `--out ${root} is not empty: pass a new directory` });
    expect(await readdir(root)).toEqual(["results.jsonl"]);
  });

  it.each([
    ["a file", (dir: string) => join(dir, "file")],
    ["a path through a file", (dir: string) => join(dir, "file", "sub")],
  ])("refuses %s as bad input naming the flag, not with a raw errno", async (_name, pathOf) => {
    await writeFile(join(root, "file"), "x");
    const out = pathOf(root);
    const refused = await createEmptyOutDir(out, "merge output").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "SWEEP_BAD_INPUT" });
    expect((refused as Error).message).toBe(`merge output ${out} is a file, or has a file on its way, not a directory: pass a new directory you can write`);
    expect((refused as Error).cause).toMatchObject({ code: expect.stringMatching(/^(?:EEXIST|ENOTDIR)$/u) });
  });
});
