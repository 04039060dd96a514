import { describe, expect, it } from "vitest";
import { SANDBOX_BWRAP, buildSessionMcp } from "./build-mcp-config.js";

const DEMO = { name: "wfbench-demo", command: "/opt/claude/node", args: ["/opt/wfbench-mcp/bin.js", "--root", "/workspace"], readOnlyPaths: ["/opt/wfbench-mcp"] };

describe("buildSessionMcp", () => {
  it("gives every MCP-keeping arm each server behind env -i and its own network-less bwrap with a read-only workspace", () => {
    for (const arm of ["workflow", "workflow_direct", "baseline", "review", "ce_workflow"] as const) {
      const mcp = buildSessionMcp(arm, [DEMO]);
      const config = JSON.parse(mcp.config) as { mcpServers: Record<string, { type: string; command: string; args: string[] }> };
      expect(Object.keys(config.mcpServers)).toEqual(["wfbench-demo"]);
      const server = config.mcpServers["wfbench-demo"];
      expect(server?.type).toBe("stdio");
      expect(server?.command).toBe("/usr/bin/env");
      const args = server?.args ?? [];
      expect(args.slice(0, 2)).toEqual(["-i", SANDBOX_BWRAP]);
      expect(args).toContain("--unshare-net");
      expect(args).toContain("--clearenv");
      const ws = args.indexOf("/workspace");
      expect(args[ws - 1]).toBe("--ro-bind");
      expect(args).not.toContain("--bind");
      expect(args.slice(args.indexOf("--") + 1)).toEqual([DEMO.command, ...DEMO.args]);
      expect(mcp.allowedTools).toEqual(["mcp__wfbench-demo"]);
      expect(mcp.disallowedTools).toEqual([]);
    }
  });

  it("gives baseline_nomcp no server at all and refuses every declared server's tools", () => {
    const mcp = buildSessionMcp("baseline_nomcp", [DEMO, { ...DEMO, name: "gitnexus" }]);
    expect(mcp).toEqual({ config: '{"mcpServers":{}}', allowedTools: [], disallowedTools: ["mcp__wfbench-demo", "mcp__gitnexus"] });
  });

  it("refuses a malformed or duplicate declaration", () => {
    expect(() => buildSessionMcp("workflow", [{ ...DEMO, name: "Bad Name" }])).toThrow(/lower-case/u);
    expect(() => buildSessionMcp("workflow", [{ ...DEMO, command: "node" }])).toThrow(/absolute/u);
    expect(() => buildSessionMcp("workflow", [{ ...DEMO, readOnlyPaths: ["/opt/../etc"] }])).toThrow(/without \.\./u);
    expect(() => buildSessionMcp("workflow", [DEMO, DEMO])).toThrow(/declared twice/u);
  });
});
