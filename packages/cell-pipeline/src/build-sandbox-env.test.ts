import { describe, expect, it } from "vitest";
import { buildSandboxEnv, renderShellPrefix } from "./build-sandbox-env.js";

describe("buildSandboxEnv / renderShellPrefix", () => {
  it("is the reference allow-list: private home, sandbox PATH, no key and no token", () => {
    const env = buildSandboxEnv();
    expect(env).toMatchObject({ HOME: "/home/agent", TMPDIR: "/tmp", PATH: "/opt/claude:/usr/local/bin:/usr/bin:/bin", CLAUDE_CONFIG_DIR: "/home/agent/.claude", CLAUDE_CODE_SHELL_PREFIX: "/opt/claude/shell-prefix", GIT_CONFIG_NOSYSTEM: "1" });
    expect(Object.keys(env).filter((name) => /KEY|TOKEN|SECRET|ANTHROPIC/u.test(name))).toEqual([]);
  });

  it("renders a wrapper under the execute-only shell that refuses anything but one argument and clears the environment", () => {
    const script = renderShellPrefix();
    // Its interpreter holds the CLI's environment, so it must be the non-dumpable copy, and `exec -c` empties that
    // environment before the readable `env` starts.
    expect(script.startsWith("#!/opt/claude/bash\nset -eu\n")).toBe(true);
    expect(script).toContain('if [ "$#" -ne 1 ]; then exit 64; fi');
    expect(script).toContain("exec -c /usr/bin/env HOME=/home/agent");
    expect(script).not.toMatch(/ANTHROPIC/u);
  });

  it("runs the host-unsafe prefix under the host's bash, the rest unchanged", () => {
    const host = renderShellPrefix("host-unsafe");
    expect(host.startsWith("#!/bin/bash\nset -eu\n")).toBe(true);
    expect(host.split("\n").slice(1)).toEqual(renderShellPrefix().split("\n").slice(1));
  });
});
