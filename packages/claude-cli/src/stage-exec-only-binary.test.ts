import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOST_BASH, assertExecOnlyBinary, stageExecOnlyBinary, stageExecOnlyShell } from "./stage-exec-only-binary.js";

const dir = mkdtempSync(join(tmpdir(), "cell-exec-only-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("stageExecOnlyBinary", () => {
  it("copies the binary with mode 0111 and refuses to overwrite", async () => {
    const source = join(dir, "claude-src");
    writeFileSync(source, "#!/bin/true\n", { mode: 0o755 });
    const staged = await stageExecOnlyBinary(source, join(dir, "claude"));
    expect(statSync(staged).mode & 0o777).toBe(0o111);
    await expect(stageExecOnlyBinary(source, staged)).rejects.toMatchObject({ code: "EEXIST" });
  });

  it("refuses a readable, writable, non-executable or linked binary", async () => {
    for (const [name, mode] of [["r", 0o511], ["w", 0o311], ["none", 0o000], ["group-r", 0o151]] as const) {
      const path = join(dir, `bin-${name}`);
      writeFileSync(path, "x");
      chmodSync(path, mode);
      await expect(assertExecOnlyBinary(path)).rejects.toMatchObject({ code: "CLAUDE_CLI_NOT_EXEC_ONLY" });
    }
    const link = join(dir, "link");
    symlinkSync(join(dir, "claude"), link);
    await expect(assertExecOnlyBinary(link)).rejects.toThrow(/not a regular file/u);
    await expect(assertExecOnlyBinary(join(dir, "claude"))).resolves.toBeUndefined();
  });
});

describe("stageExecOnlyShell", () => {
  it("stages the host's bash execute-only, byte for byte, and refuses to overwrite", async () => {
    const staged = await stageExecOnlyShell(join(dir, "bash"));
    expect(statSync(staged).mode & 0o777).toBe(0o111);
    expect(statSync(staged).size).toBe(statSync(HOST_BASH).size);
    await expect(assertExecOnlyBinary(staged)).resolves.toBeUndefined();
    await expect(stageExecOnlyShell(staged)).rejects.toMatchObject({ code: "EEXIST" });
  });
});
