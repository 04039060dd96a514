import { describe, expect, it } from "vitest";
import { parseSandboxPolicy } from "./build-argv.js";
import { buildHostPathMap, rewriteSandboxText, toHostPath } from "./host-paths.js";

const policy = parseSandboxPolicy({
  workspace: { hostPath: "/srv/clone", mode: "ro" },
  mounts: [
    { source: "/srv/private/review-output", target: "/review-output", mode: "rw" },
    { source: "/srv/deps/nm", target: "/workspace/node_modules", mode: "ro" },
    { source: "/opt/pkgs/claude", target: "/opt/claude/claude", mode: "ro" },
  ],
  network: { mode: "gateway-socket", hostSocketPath: "/srv/private/gw.sock" },
});
const map = buildHostPathMap(policy, { home: "/srv/scratch/home", tmp: "/srv/scratch/tmp" });

describe("toHostPath", () => {
  it.each([
    ["/workspace", "/srv/clone"],
    ["/workspace/src/a.ts", "/srv/clone/src/a.ts"],
    ["/workspace/node_modules/x/index.js", "/srv/deps/nm/x/index.js"],
    ["/home/agent/.claude", "/srv/scratch/home/.claude"],
    ["/tmp", "/srv/scratch/tmp"],
    ["/run/gateway.sock", "/srv/private/gw.sock"],
    ["/opt/claude/claude", "/opt/pkgs/claude"],
    ["/workspacex/a", "/workspacex/a"],
    ["/usr/bin/git", "/usr/bin/git"],
  ])("maps %s → %s by longest prefix", (inside, host) => {
    expect(toHostPath(inside, map)).toBe(host);
  });
});

describe("rewriteSandboxText", () => {
  it("rewrites only at path boundaries", () => {
    expect(rewriteSandboxText("write /review-output/review-output.json now", map)).toBe(
      "write /srv/private/review-output/review-output.json now",
    );
    expect(rewriteSandboxText("cd /workspace && ls /workspace/node_modules/x", map)).toBe(
      "cd /srv/clone && ls /srv/deps/nm/x",
    );
    expect(rewriteSandboxText(`ROOT="/workspace" '/tmp'`, map)).toBe(`ROOT="/srv/clone" '/srv/scratch/tmp'`);
    expect(rewriteSandboxText("/home/agent/bin:/usr/bin", map)).toBe("/srv/scratch/home/bin:/usr/bin");
  });
  it("leaves look-alikes untouched", () => {
    for (const text of ["/workspaces/a", "/review-output.json", "x/workspace/y", "/tmpfile", "my/tmp", "/workspace-old"])
      expect(rewriteSandboxText(text, map)).toBe(text);
  });
});
