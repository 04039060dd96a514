import { canonicalJson } from "@wfbench/digest";
import type { KnownArm } from "@wfbench/result-row";
import type { McpServer } from "@wfbench/task-suite";

/** In-sandbox path of the node binary the cell mounts for the MCP relay and each server's own sandbox. */
export const SANDBOX_NODE = "/opt/claude/node";
/** In-sandbox directory (read-only) holding the relay script and one socket per declared server. */
export const SANDBOX_MCP_RELAY_DIR = "/opt/wfbench-mcp";
/** The relay's file name inside SANDBOX_MCP_RELAY_DIR (and inside the cell's private MCP directory on the host). */
export const MCP_RELAY_FILE = "relay.mjs";

/** The socket file name of the `index`-th declared server (short: a socket path must stay under 108 bytes). */
export function mcpSocketName(index: number): string {
  return `s${index}.sock`;
}

/** What one session's argv gets: the `--mcp-config` JSON and the MCP tool patterns to allow and to refuse. */
export interface SessionMcp {
  readonly config: string;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
}

/**
 * The strict, clone-local MCP configuration of one session (reference §6.4, Appendix B). Each declared server is a
 * stdio relay the CLI starts inside the cell: node copies stdio to the server's socket, and the harness serves that
 * socket with the real server in a sandbox of its own (serveMcpServers: workspace read-only, no network). Every arm
 * but `baseline_nomcp` keeps the tools (a baseline loses only its skills); `baseline_nomcp` gets `{"mcpServers":{}}`
 * and every declared server's tools refused. Trusts the servers to be a validated suite's (unique names).
 */
export function buildSessionMcp(arm: KnownArm, servers: readonly McpServer[]): SessionMcp {
  const patterns = servers.map((server) => `mcp__${server.name}`);
  if (arm === "baseline_nomcp") return { config: canonicalJson({ mcpServers: {} }), allowedTools: [], disallowedTools: patterns };
  const mcpServers = Object.fromEntries(
    servers.map((server, index) => [server.name, { type: "stdio", command: SANDBOX_NODE, args: [`${SANDBOX_MCP_RELAY_DIR}/${MCP_RELAY_FILE}`, `${SANDBOX_MCP_RELAY_DIR}/${mcpSocketName(index)}`] }]),
  );
  return { config: canonicalJson({ mcpServers }), allowedTools: patterns, disallowedTools: [] };
}
