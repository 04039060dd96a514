// The resolver against the real installed CLI, and against small fake package trees for each failure.
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PINNED_CLAUDE_CODE_VERSION, resolveClaudeCli, type ClaudeCliPlatform } from "../src/resolve-claude-cli.js";
import { ClaudeCliError } from "../src/errors.js";

const required = process.env["CI"] === "true";
const linuxX64: ClaudeCliPlatform = { platform: "linux", arch: "x64", libc: "glibc" };
const realCli = await resolveClaudeCli().then(
  (value) => ({ ok: true as const, value }),
  (error: unknown) => ({ ok: false as const, error }),
);

describe("resolveClaudeCli", () => {
  it.skipIf(!realCli.ok && !required)("finds the installed pinned binary and proves its version", () => {
    if (!realCli.ok) throw realCli.error;
    expect(realCli.value.version).toBe(PINNED_CLAUDE_CODE_VERSION);
    expect(realCli.value.path).toMatch(/@anthropic-ai\/claude-code-linux-(x64|arm64)(-musl)?\/claude$/);
  });

  describe("with a fake package tree", () => {
    let root = "";
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), "sm-resolve-"));
    });
    afterEach(async () => {
      await rm(root, { recursive: true, force: true });
    });

    async function writePackage(name: string, version: string): Promise<string> {
      const dir = join(root, "node_modules", ...name.split("/"));
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "package.json"), JSON.stringify({ name, version }));
      return dir;
    }

    async function writeTree(options: { binary?: string; mode?: number; platformVersion?: string; wrapperVersion?: string; platformPackage?: string }): Promise<string> {
      await writePackage("@anthropic-ai/claude-code", options.wrapperVersion ?? PINNED_CLAUDE_CODE_VERSION);
      const dir = await writePackage(options.platformPackage ?? "@anthropic-ai/claude-code-linux-x64", options.platformVersion ?? PINNED_CLAUDE_CODE_VERSION);
      if (options.binary !== undefined) {
        const path = join(dir, "claude");
        await writeFile(path, options.binary);
        await chmod(path, options.mode ?? 0o755);
      }
      return dir;
    }

    async function expectCode(promise: Promise<unknown>, code: string, fragment: RegExp): Promise<void> {
      const error = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ClaudeCliError);
      expect(error).toMatchObject({ code });
      expect((error as Error).message).toMatch(fragment);
    }

    it("accepts a binary that reports the pinned version", async () => {
      const dir = await writeTree({ binary: `#!/bin/sh\necho "${PINNED_CLAUDE_CODE_VERSION} (Claude Code)"\n` });
      const resolved = await resolveClaudeCli({ resolveFrom: root, platform: linuxX64 });
      expect(resolved).toEqual({ path: join(dir, "claude"), version: PINNED_CLAUDE_CODE_VERSION, platformPackage: "@anthropic-ai/claude-code-linux-x64" });
    });

    it("picks the musl package on a musl host", async () => {
      await writeTree({ binary: `#!/bin/sh\necho "${PINNED_CLAUDE_CODE_VERSION} (Claude Code)"\n`, platformPackage: "@anthropic-ai/claude-code-linux-x64-musl" });
      const resolved = await resolveClaudeCli({ resolveFrom: root, platform: { ...linuxX64, libc: "musl" } });
      expect(resolved.platformPackage).toBe("@anthropic-ai/claude-code-linux-x64-musl");
    });

    it("refuses a binary reporting another version", async () => {
      await writeTree({ binary: '#!/bin/sh\necho "9.9.9 (Claude Code)"\n' });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_VERSION_MISMATCH", /9\.9\.9.*npm ci/);
    });

    it("refuses a wrapper package at another version than the pin", async () => {
      await writeTree({ binary: "#!/bin/sh\n", wrapperVersion: "0.0.1" });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_VERSION_MISMATCH", /0\.0\.1 is installed/);
    });

    it("refuses a platform package at another version than the wrapper", async () => {
      await writeTree({ binary: "#!/bin/sh\n", platformVersion: "0.0.2" });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_VERSION_MISMATCH", /0\.0\.2/);
    });

    it("names npm ci when the wrapper package is absent", async () => {
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_PACKAGE_MISSING", /npm ci/);
    });

    it("names the missing platform package", async () => {
      await writePackage("@anthropic-ai/claude-code", PINNED_CLAUDE_CODE_VERSION);
      await expectCode(
        resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }),
        "CLAUDE_CLI_PLATFORM_PACKAGE_MISSING",
        /npm ci.*@anthropic-ai\/claude-code-linux-x64 is missing/,
      );
    });

    it("refuses a missing binary and a non-executable one", async () => {
      await writeTree({});
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_BINARY_MISSING", /not a regular file/);
      await writeTree({ binary: "#!/bin/sh\n", mode: 0o644 });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_NOT_EXECUTABLE", /chmod \+x/);
    });

    it("bounds --version and reports a hang or a crash", async () => {
      await writeTree({ binary: "#!/bin/sh\nexec sleep 30\n" });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64, versionTimeoutMs: 300 }), "CLAUDE_CLI_VERSION_FAILED", /timed out after 300 ms/);
      await writeTree({ binary: "#!/bin/sh\necho boom >&2\nexit 3\n" });
      await expectCode(resolveClaudeCli({ resolveFrom: root, platform: linuxX64 }), "CLAUDE_CLI_VERSION_FAILED", /boom/);
    });

    it("refuses platforms without a native package", async () => {
      await expectCode(
        resolveClaudeCli({ resolveFrom: root, platform: { platform: "darwin", arch: "arm64", libc: "glibc" } }),
        "CLAUDE_CLI_UNSUPPORTED_PLATFORM",
        /darwin\/arm64/,
      );
    });
  });
});

describe("resolveClaudeCli with a user-supplied --claude-bin", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "claude-bin-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fake(name: string, body: string, mode = 0o755): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, body);
    await chmod(path, mode);
    return path;
  }

  async function refusal(claudeBin: string): Promise<ClaudeCliError> {
    const error = await resolveClaudeCli({ claudeBin, versionTimeoutMs: 2000 }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ClaudeCliError);
    return error as ClaudeCliError;
  }

  it.skipIf(!realCli.ok && !required)("accepts the pinned native binary given by path and reports its own version", async () => {
    if (!realCli.ok) throw realCli.error;
    const resolved = await resolveClaudeCli({ claudeBin: realCli.value.path });
    expect(resolved).toEqual({ path: realCli.value.path, version: PINNED_CLAUDE_CODE_VERSION, platformPackage: "user-supplied" });
  });

  it("refuses a hostile fake that prints garbage, naming the flag and what it printed", async () => {
    const error = await refusal(await fake("claude", "#!/bin/sh\nprintf '\\033[31mHELLO 9.9.9 pwned\\n'\n"));
    expect(error.code).toBe("CLAUDE_CLI_VERSION_MISMATCH");
    expect(error.message).toMatch(/--claude-bin .*HELLO 9\.9\.9 pwned.*pass a Claude Code CLI/);
  });

  it("refuses a CLI older than the pin, a failing --version, a non-executable file, a missing path and a relative one", async () => {
    const old = await refusal(await fake("old", "#!/bin/sh\necho '1.0.3 (Claude Code)'\n"));
    expect([old.code, old.message]).toEqual(["CLAUDE_CLI_VERSION_MISMATCH", expect.stringMatching(/1\.0\.3, older than .*upgrade it/)]);
    const crash = await refusal(await fake("crash", "#!/bin/sh\necho nope >&2\nexit 4\n"));
    expect([crash.code, crash.message]).toEqual(["CLAUDE_CLI_VERSION_FAILED", expect.stringMatching(/nope.*--claude-bin/)]);
    expect((await refusal(await fake("plain", "#!/bin/sh\n", 0o644))).code).toBe("CLAUDE_CLI_NOT_EXECUTABLE");
    expect((await refusal(join(dir, "absent"))).code).toBe("CLAUDE_CLI_BINARY_MISSING");
    expect((await refusal("bin/claude")).message).toMatch(/absolute path/);
  });

  it("refuses a script that claims the pinned version: it cannot run execute-only in the sandbox", async () => {
    const error = await refusal(await fake("liar", `#!/bin/sh\necho '${PINNED_CLAUDE_CODE_VERSION} (Claude Code)'\n`));
    expect(error.code).toBe("CLAUDE_CLI_NOT_NATIVE");
    expect(error.message).toMatch(/not a native executable/);
  });
});
