import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listHiddenHarnessPaths } from "./hidden-harness-paths.js";

describe("listHiddenHarnessPaths", () => {
  let root: string;
  let repo: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "wfbench-hidden-paths-"));
    repo = join(root, "repo");
    mkdirSync(join(repo, "eval", "oracles"), { recursive: true });
    mkdirSync(join(repo, "..oracles"), { recursive: true });
    writeFileSync(join(repo, "eval", "tasks.yaml"), "");
    mkdirSync(join(root, "outside"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("keeps the paths inside the repository, repo-relative and sorted, drops nested and outside ones", async () => {
    const listed = await listHiddenHarnessPaths(repo, [
      { path: join(repo, "eval", "tasks.yaml"), flag: "--tasks" },
      { path: join(repo, "eval"), flag: "suite dir" },
      { path: join(repo, "eval", "oracles"), flag: "--oracles" },
      { path: join(root, "outside"), flag: "--oracles" },
    ]);
    expect(listed).toEqual({ ok: true, value: ["eval"] });
  });

  it("hides a directory whose name starts with two dots, and one reached through a link", async () => {
    symlinkSync(join(repo, "eval", "oracles"), join(root, "oracles-link"));
    const listed = await listHiddenHarnessPaths(repo, [
      { path: join(repo, "..oracles"), flag: "--oracles" },
      { path: join(root, "oracles-link"), flag: "--tasks" },
    ]);
    expect(listed).toEqual({ ok: true, value: ["..oracles", "eval/oracles"] });
  });

  it("resolves a path that does not exist yet through its nearest existing parent, so a linked repository keeps it", async () => {
    symlinkSync(repo, join(root, "repo-link"));
    const listed = await listHiddenHarnessPaths(join(root, "repo-link"), [{ path: join(root, "repo-link", "tasks"), flag: "default" }]);
    expect(listed).toEqual({ ok: true, value: ["tasks"] });
  });

  it("refuses the repository itself, naming the flag", async () => {
    const listed = await listHiddenHarnessPaths(repo, [{ path: `${repo}/`, flag: "--oracles" }]);
    expect(listed.ok).toBe(false);
    if (!listed.ok) expect(listed.error).toMatch(/^--oracles .* is the repository itself/);
  });
});
