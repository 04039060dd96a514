import { describe, expect, it } from "vitest";
import { SANDBOX_MCP_RELAY_DIR, SANDBOX_NODE, buildSessionMcp } from "./build-mcp-config.js";
import { countMcpToolUses } from "./summarize-sessions.js";

const DEMO = { name: "wfbench-demo", command: "/opt/claude/node", args: ["/opt/mcp/demo/bin.mjs", "--root", "/workspace"], mounts: [{ source: "/srv/demo", target: "/opt/mcp/demo" }] };
const GITNEXUS = { ...DEMO, name: "gitnexus", mounts: [] };

describe("buildSessionMcp", () => {
  it("gives every MCP-keeping arm each server as a node relay to its own socket, pre-approving its tools", () => {
    for (const arm of ["workflow", "workflow_direct", "baseline", "review", "candidate_workflow"] as const) {
      const mcp = buildSessionMcp(arm, [DEMO, GITNEXUS]);
      const config = JSON.parse(mcp.config) as { mcpServers: Record<string, { type: string; command: string; args: string[] }> };
      expect(Object.keys(config.mcpServers).sort()).toEqual(["gitnexus", "wfbench-demo"]);
      expect(config.mcpServers["wfbench-demo"]).toEqual({ type: "stdio", command: SANDBOX_NODE, args: [`${SANDBOX_MCP_RELAY_DIR}/relay.mjs`, `${SANDBOX_MCP_RELAY_DIR}/s0.sock`] });
      expect(config.mcpServers["gitnexus"]?.args[1]).toBe(`${SANDBOX_MCP_RELAY_DIR}/s1.sock`);
      // The server's own command never reaches the cell: it runs host-side, in its own sandbox.
      expect(mcp.config).not.toContain("/opt/mcp/demo");
      expect(mcp.allowedTools).toEqual(["mcp__wfbench-demo", "mcp__gitnexus"]);
      expect(mcp.disallowedTools).toEqual([]);
    }
  });

  it("gives baseline_nomcp no server at all and refuses every declared server's tools", () => {
    const mcp = buildSessionMcp("baseline_nomcp", [DEMO, GITNEXUS]);
    expect(mcp).toEqual({ config: '{"mcpServers":{}}', allowedTools: [], disallowedTools: ["mcp__wfbench-demo", "mcp__gitnexus"] });
  });
});

describe("countMcpToolUses", () => {
  it("counts mcp__<server>__<tool> uses per declared server, zero for an unused one, and ignores undeclared servers", () => {
    const tally = { Bash: 2, "mcp__wfbench-demo__find_references": 3, "mcp__wfbench-demo__impact": 1, mcp__other__x: 5 };
    expect(countMcpToolUses(tally, ["wfbench-demo", "gitnexus"])).toEqual({ "wfbench-demo": 4, gitnexus: 0 });
  });

  it("is null when no server is declared or the tally is unmeasured", () => {
    expect(countMcpToolUses({ Bash: 1 }, [])).toBeNull();
    expect(countMcpToolUses(null, ["gitnexus"])).toBeNull();
  });
});
