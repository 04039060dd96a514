import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claimScratchDir, reapStaleScratchDirs } from "./scratch-dir.js";

const base = mkdtempSync(join(tmpdir(), "wfbench-scratch-test-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A pid that is certainly gone: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

describe("scratch dirs", () => {
  it("records the owner pid and start time, and a reap keeps live owners' dirs", async () => {
    const tmp = join(base, "live");
    mkdirSync(tmp);
    const dir = await claimScratchDir(tmp, process.pid);
    const owner = JSON.parse(readFileSync(join(dir, "owner.json"), "utf8")) as { pid: number; start: string };
    expect(owner.pid).toBe(process.pid);
    expect(owner.start).toMatch(/^\d+$/u);
    expect(await reapStaleScratchDirs(tmp)).toEqual({ removed: [], failed: [] });
    expect(existsSync(dir)).toBe(true);
  });

  it("removes dirs whose owner is gone or whose pid was reused, and leaves unowned and foreign dirs alone", async () => {
    const tmp = join(base, "stale");
    mkdirSync(tmp);
    const gone = await claimScratchDir(tmp, process.pid);
    writeFileSync(join(gone, "owner.json"), JSON.stringify({ pid: deadPid(), start: "1" }));
    mkdirSync(join(gone, "cells/a"), { recursive: true });
    const reused = await claimScratchDir(tmp, process.pid);
    const mine = JSON.parse(readFileSync(join(reused, "owner.json"), "utf8")) as { start: string };
    writeFileSync(join(reused, "owner.json"), JSON.stringify({ pid: process.pid, start: String(Number(mine.start) + 1) }));
    const unowned = join(tmp, "wfbench-run-unowned");
    mkdirSync(unowned);
    const garbled = join(tmp, "wfbench-run-garbled");
    mkdirSync(garbled);
    writeFileSync(join(garbled, "owner.json"), "{not json");
    const foreign = join(tmp, "other-tool-dir");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "owner.json"), JSON.stringify({ pid: deadPid(), start: "1" }));
    const result = await reapStaleScratchDirs(tmp);
    expect([...result.removed].sort()).toEqual([gone, reused].sort());
    for (const kept of [unowned, garbled, foreign]) expect(existsSync(kept)).toBe(true);
    expect(existsSync(gone) || existsSync(reused)).toBe(false);
  });
});
