// A chain deeper than PATH_MAX, built by a child process (Node's fs walks by absolute path and cannot create it): the
// no-follow walk reads through it, where a path-based read fails with ENAMETOOLONG.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listUnderRoot, readFileUnderRoot } from "../src/open-under-root.js";
import { removeTree } from "../src/remove-tree.js";

const root = mkdtempSync(join(tmpdir(), "under-root-deep-"));
const DEPTH = 30;
const NAME = "d".repeat(200);
afterAll(() => removeTree(root));

describe("a walk below PATH_MAX-deep directories", () => {
  it("lists and reads at a depth where the absolute path is past PATH_MAX", async () => {
    const made = spawnSync("python3", ["-c", `import os\nos.chdir(${JSON.stringify(root)})\nfor _ in range(${DEPTH}):\n    os.mkdir("${NAME}")\n    os.chdir("${NAME}")\nopen("leaf.txt", "w").write("deep\\n")`]);
    expect(made.status, made.stderr.toString()).toBe(0);
    const relative = [...Array<string>(DEPTH).fill(NAME), "leaf.txt"].join("/");
    expect(join(root, relative).length).toBeGreaterThan(4096);
    expect(() => readFileSync(join(root, relative))).toThrow(/ENAMETOOLONG/u);
    expect((await readFileUnderRoot(root, relative, 100)).bytes.toString()).toBe("deep\n");
    expect((await listUnderRoot(root, Array<string>(DEPTH).fill(NAME).join("/"))).map((entry) => entry.name)).toEqual(["leaf.txt"]);
  });
});
