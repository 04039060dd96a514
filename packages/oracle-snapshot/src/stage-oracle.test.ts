import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOracleError } from "./errors.js";
import { createOracleSnapshot } from "./oracle-snapshot.js";
import { removeStagedOracle } from "./remove-staged-oracle.js";
import { stageOracle } from "./stage-oracle.js";
import type { StagedOracle } from "./stage-oracle.js";
import { verifyOracleMountpoint, verifyStagedOracle } from "./verify-staged-oracle.js";

const TOKEN = "0123456789abcdef0123456789abcdef";
const NAME = `.wfbench-oracle-${TOKEN}`;
let base: string;
let workspace: string;
let privateRoot: string;
const snapshot = createOracleSnapshot("true", [
  { target: "vitest.config.mts", payload: Buffer.from("export default {};\n") },
  { target: "nested/deep/x.oracle.test.ts", payload: Buffer.from("hidden test\n") },
]);

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "oracle-stage-"));
  workspace = join(base, "workspace");
  privateRoot = join(base, "private");
  await mkdir(workspace);
  await mkdir(privateRoot, { mode: 0o700 });
  await chmod(privateRoot, 0o700);
});
const created: StagedOracle[] = [];
afterEach(async () => {
  for (const staged of created.splice(0)) await removeStagedOracle(staged).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
});

const track = async (pending: Promise<StagedOracle>): Promise<StagedOracle> => {
  const staged = await pending;
  created.push(staged);
  return staged;
};
const stage = (token = TOKEN) =>
  track(stageOracle(snapshot, { workspaceDir: workspace, privateRoot, randomToken: () => token }));
const codeOf = async (promise: Promise<unknown>): Promise<string | false> => {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isOracleError(error) && error.code;
};
const mode = async (path: string) => (await lstat(path)).mode & 0o7777;

describe("stageOracle", () => {
  it("creates an empty 0700 mountpoint in the workspace and a 0700/0400 stage outside it", async () => {
    const staged = await stage();
    expect(staged.mountpointPath).toBe(join(workspace, NAME));
    expect(staged.stageDir).toBe(join(privateRoot, NAME));
    expect(await readdir(staged.mountpointPath)).toEqual([]);
    expect(await mode(staged.mountpointPath)).toBe(0o700);
    expect(await mode(staged.stageDir)).toBe(0o700);
    expect(await mode(join(staged.stageDir, "nested"))).toBe(0o700);
    expect(await mode(join(staged.stageDir, "nested/deep"))).toBe(0o700);
    expect(await mode(join(staged.stageDir, "vitest.config.mts"))).toBe(0o400);
    expect(await readFile(join(staged.stageDir, "nested/deep/x.oracle.test.ts"), "utf8")).toBe("hidden test\n");
    await verifyStagedOracle(snapshot, staged);
    await verifyOracleMountpoint(staged);
  });

  it("uses a fresh random 32-hex name each time", async () => {
    const first = await track(stageOracle(snapshot, { workspaceDir: workspace, privateRoot }));
    const second = await track(stageOracle(snapshot, { workspaceDir: workspace, privateRoot }));
    expect(first.name).toMatch(/^\.wfbench-oracle-[0-9a-f]{32}$/);
    expect(second.name).not.toBe(first.name);
  });

  describe("collisions fail closed before anything runs", () => {
    it("refuses a symlink planted where the mountpoint goes and leaves its target alone", async () => {
      const decoy = join(base, "decoy");
      await mkdir(decoy);
      await symlink(decoy, join(workspace, NAME));
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_COLLISION");
      expect(await readdir(decoy)).toEqual([]);
      expect((await lstat(join(workspace, NAME))).isSymbolicLink()).toBe(true);
      expect(await readdir(privateRoot)).toEqual([]);
    });

    it("refuses a dangling symlink at the mountpoint name", async () => {
      await symlink(join(base, "not-there"), join(workspace, NAME));
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_COLLISION");
      await expect(stat(join(base, "not-there"))).rejects.toThrow();
    });

    it("refuses a planted file or directory at the mountpoint name", async () => {
      await writeFile(join(workspace, NAME), "planted");
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_COLLISION");
      await rm(join(workspace, NAME));
      await mkdir(join(workspace, NAME));
      await writeFile(join(workspace, NAME, "x.oracle.test.ts"), "planted passing test");
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_COLLISION");
    });

    it("refuses a file already named like the stage and removes the new mountpoint", async () => {
      await writeFile(join(privateRoot, NAME), "planted");
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_COLLISION");
      expect(await readdir(workspace)).toEqual([]);
      expect(await readFile(join(privateRoot, NAME), "utf8")).toBe("planted");
    });
  });

  describe("refuses unsafe roots", () => {
    it("refuses a private root inside the workspace", async () => {
      const inner = join(workspace, "private");
      await mkdir(inner, { mode: 0o700 });
      expect(await codeOf(stageOracle(snapshot, { workspaceDir: workspace, privateRoot: inner }))).toBe(
        "ORACLE_STAGE_INPUT_INVALID",
      );
    });

    it("refuses a workspace reached through a symlink, a relative path and a shared private root", async () => {
      await symlink(workspace, join(base, "ws-link"));
      expect(await codeOf(stageOracle(snapshot, { workspaceDir: join(base, "ws-link"), privateRoot }))).toBe(
        "ORACLE_STAGE_INPUT_INVALID",
      );
      expect(await codeOf(stageOracle(snapshot, { workspaceDir: "workspace", privateRoot }))).toBe(
        "ORACLE_STAGE_INPUT_INVALID",
      );
      await chmod(privateRoot, 0o777);
      expect(await codeOf(stage())).toBe("ORACLE_STAGE_INPUT_INVALID");
      expect(await readdir(workspace)).toEqual([]);
    });

    it("refuses a token that is not 32 hex digits", async () => {
      expect(await codeOf(stage("../../escape"))).toBe("ORACLE_STAGE_INPUT_INVALID");
    });
  });
});

describe("verifyStagedOracle", () => {
  let staged: StagedOracle;
  beforeEach(async () => {
    staged = await stage();
  });
  const file = () => join(staged.stageDir, "vitest.config.mts");

  it.each([
    ["changed bytes of the same size", async () => {
      await chmod(file(), 0o600);
      await writeFile(file(), "export default {x};\n".slice(0, 19));
      await chmod(file(), 0o400);
    }],
    ["an appended byte", async () => {
      await chmod(file(), 0o600);
      await writeFile(file(), "export default {};\n\n");
      await chmod(file(), 0o400);
    }],
    ["a file made writable", async () => chmod(file(), 0o600)],
    ["an extra planted file", async () => writeFile(join(staged.stageDir, "setup.ts"), "process.exit(0)")],
    ["a deleted file", async () => rm(file())],
    ["a file replaced by a symlink", async () => {
      await rm(file());
      await symlink("/etc/hostname", file());
    }],
    ["a directory made world-writable", async () => chmod(join(staged.stageDir, "nested"), 0o777)],
    ["a swapped stage root", async () => {
      await rm(staged.stageDir, { recursive: true });
      await mkdir(staged.stageDir, { mode: 0o700 });
    }],
  ])("throws ORACLE_STAGE_TAMPERED for %s", async (_label, tamper) => {
    await tamper();
    expect(await codeOf(verifyStagedOracle(snapshot, staged))).toBe("ORACLE_STAGE_TAMPERED");
  });
});

describe("verifyStagedOracle never echoes names the run chose", () => {
  // Code that ran beside the hidden tests could name a planted entry after their content; the error (which ends up
  // in logs) must not carry that name.
  it.each([
    ["a planted file", async (dir: string) => writeFile(join(dir, "LEAKED-expect-add-2-3-toBe-5"), "x")],
    ["a planted directory", async (dir: string) => mkdir(join(dir, "nested", "LEAKED-expect-add-2-3-toBe-5"))],
  ])("keeps %s's name out of the tamper error", async (_label, plant) => {
    const staged = await stage();
    await plant(staged.stageDir);
    const error: unknown = await verifyStagedOracle(snapshot, staged).catch((e: unknown) => e);
    expect(isOracleError(error) && error.code).toBe("ORACLE_STAGE_TAMPERED");
    expect(String((error as Error).message)).toMatch(/unexpected entr/);
    expect(String((error as Error).message)).not.toContain("LEAKED");
  });
});

describe("verifyOracleMountpoint and removeStagedOracle", () => {
  it("never follows a stage swapped for a symlink when removing it", async () => {
    const staged = await stage();
    const victim = join(base, "victim");
    await mkdir(victim);
    await chmod(victim, 0o755);
    await writeFile(join(victim, "keep"), "x");
    await rm(staged.stageDir, { recursive: true, force: true });
    await symlink(victim, staged.stageDir);
    await removeStagedOracle(staged).catch(() => undefined);
    expect(await mode(victim)).toBe(0o755);
    expect(await readdir(victim)).toEqual(["keep"]);
  });

  it("removes the stage and the mountpoint", async () => {
    const staged = await stage();
    await removeStagedOracle(staged);
    expect(await readdir(workspace)).toEqual([]);
    expect(await readdir(privateRoot)).toEqual([]);
  });

  it.each([
    ["replaced by a file", async (path: string) => {
      await rmdir(path);
      await writeFile(path, "x");
    }],
    ["replaced by a symlink", async (path: string) => {
      await rmdir(path);
      await symlink("/tmp", path);
    }],
    ["replaced by another directory", async (path: string) => {
      await rmdir(path);
      await mkdir(path);
    }],
    ["filled", async (path: string) => writeFile(join(path, "planted"), "x")],
    ["removed", async (path: string) => rmdir(path)],
  ])("throws ORACLE_MOUNTPOINT_CHANGED when the mountpoint was %s, and never follows it on cleanup", async (_l, change) => {
    const staged = await stage();
    await change(staged.mountpointPath);
    expect(await codeOf(verifyOracleMountpoint(staged))).toBe("ORACLE_MOUNTPOINT_CHANGED");
    const before = await lstat(staged.mountpointPath).catch(() => null);
    await removeStagedOracle(staged).catch(() => undefined);
    const after = await lstat(staged.mountpointPath).catch(() => null);
    expect(after?.ino).toBe(before?.ino);
    expect(await readdir(privateRoot)).toEqual([]);
  });
});
