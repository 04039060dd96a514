import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSandboxPolicy } from "./build-argv.js";
import { checkMountSources } from "./check-mount-sources.js";
import type { SandboxPolicyInput } from "./schema.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function root(): string {
  const r = mkdtempSync(join(tmpdir(), "wfbench-targets-"));
  roots.push(r);
  return r;
}
const check = (input: SandboxPolicyInput) => checkMountSources(parseSandboxPolicy(input));

describe("checkMountSources", () => {
  it("accepts real sources and targets that exist as real directories or do not exist yet", async () => {
    const r = root();
    mkdirSync(join(r, "home/.claude"), { recursive: true });
    mkdirSync(join(r, "ws/node_modules"), { recursive: true });
    mkdirSync(join(r, "dep"));
    const result = await check({
      homeHostPath: join(r, "home"),
      workspace: { hostPath: join(r, "ws"), mode: "rw" },
      mounts: [
        { source: join(r, "dep"), target: "/home/agent/.claude/skills", mode: "ro" },
        { source: join(r, "dep"), target: "/workspace/node_modules/not-yet/there", mode: "ro" },
        { source: join(r, "dep"), target: "/opt/anything", mode: "ro" },
      ],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
    });
    expect(result).toEqual({ ok: true, value: undefined });
  });

  it("refuses a missing or symlinked source", async () => {
    const r = root();
    mkdirSync(join(r, "real"));
    symlinkSync(join(r, "real"), join(r, "link"));
    const result = await check({
      mounts: [
        { source: join(r, "missing"), target: "/opt/a", mode: "ro" },
        { source: join(r, "link"), target: "/opt/b", mode: "ro" },
      ],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.join("\n")).toMatch(/missing does not exist/);
      expect(result.error.join("\n")).toMatch(/link is a symlink/);
    }
  });

  it("refuses a mount target reached through a symlink inside a host-backed home", async () => {
    const r = root();
    mkdirSync(join(r, "home"));
    mkdirSync(join(r, "dep"));
    symlinkSync("/oldroot/etc", join(r, "home/.claude"));
    const result = await check({ homeHostPath: join(r, "home"), mounts: [{ source: join(r, "dep"), target: "/home/agent/.claude/skills", mode: "ro" }] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.join("\n")).toMatch(/mount target \/home\/agent\/\.claude\/skills passes through .*\/home\/\.claude, which is a symlink/);
  });

  it("refuses tmpfs targets and targets under an earlier extra mount that pass through a symlink or a file", async () => {
    const r = root();
    mkdirSync(join(r, "ws"));
    mkdirSync(join(r, "rt"));
    mkdirSync(join(r, "dep"));
    symlinkSync("../../x", join(r, "ws/node_modules"));
    writeFileSync(join(r, "rt/file"), "x");
    const result = await check({
      workspace: { hostPath: join(r, "ws"), mode: "rw" },
      mounts: [
        { source: join(r, "rt"), target: "/opt/rt", mode: "ro" },
        { source: join(r, "dep"), target: "/opt/rt/file/inner", mode: "ro" },
      ],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toHaveLength(2);
      expect(result.error.join("\n")).toMatch(/tmpfs target \/workspace\/node_modules\/\.vite-temp passes through .*\/ws\/node_modules, which is a symlink/);
      expect(result.error.join("\n")).toMatch(/mount target \/opt\/rt\/file\/inner passes through .*\/rt\/file, which is not a directory/);
    }
  });

  it("does not look through targets on the sandbox's own tmpfs (fresh, nothing planted)", async () => {
    const r = root();
    mkdirSync(join(r, "dep"));
    const result = await check({ mounts: [{ source: join(r, "dep"), target: "/home/agent/.claude/skills", mode: "ro" }], tmpfs: ["/tmp/x/y"] });
    expect(result.ok).toBe(true);
  });
});
