import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { assessImpact } from "./assess-impact.js";
import { DEFAULT_SEARCH_LIMITS, findReferences, type SearchLimits } from "./find-references.js";

/** The server's name as suites declare it and rows count its tool uses under (`mcp_tool_uses`). */
export const DEMO_MCP_SERVER_NAME = "wfbench-demo";

/**
 * An MCP server (official SDK) with two read-only tools over the repository at `root` (in a cell: /workspace, mounted
 * read-only in the server's own sandbox): `find_references` and `impact` (the files and tests a change would touch). Trusts `root`; the model's arguments are checked by the
 * tool's schema, and a symbol that is not an identifier is answered with an error result, not a crash.
 */
export function createDemoMcpServer(options: { readonly root: string; readonly limits?: SearchLimits }): McpServer {
  const server = new McpServer({ name: DEMO_MCP_SERVER_NAME, version: "1.0.0" });
  server.registerTool(
    "find_references",
    {
      title: "Find references",
      description: "List every line of the repository that mentions a symbol (function, class or variable name) as a whole word, as path:line: text.",
      inputSchema: { symbol: z.string().min(1).max(128).describe("the identifier to look for, e.g. clamp") },
    },
    async ({ symbol }) => {
      try {
        const found = await findReferences(options.root, symbol, options.limits ?? DEFAULT_SEARCH_LIMITS);
        const lines = found.references.map((ref) => `${ref.path}:${ref.line}: ${ref.text}`);
        if (found.truncated) lines.push("(more references not shown)");
        return { content: [{ type: "text", text: lines.length === 0 ? `no references to ${symbol}` : lines.join("\n") }] };
      } catch (error) {
        return { isError: true, content: [{ type: "text", text: (error as Error).message }] };
      }
    },
  );
  server.registerTool(
    "impact",
    {
      title: "Impact of a change",
      description: "Before changing a symbol: every file that mentions it (with how often) and the test files to re-run afterwards.",
      inputSchema: { symbol: z.string().min(1).max(128).describe("the identifier you plan to change, e.g. clamp") },
    },
    async ({ symbol }) => {
      try {
        const found = await findReferences(options.root, symbol, options.limits ?? DEFAULT_SEARCH_LIMITS);
        const impact = assessImpact(found.references);
        if (impact.files.length === 0) return { content: [{ type: "text", text: `nothing mentions ${symbol}` }] };
        const lines = impact.files.map((file) => `${file.path}: ${file.mentions} mention(s)${file.test ? " (test)" : ""}`);
        lines.push(impact.tests.length === 0 ? "tests to re-run: none found" : `tests to re-run: ${impact.tests.join(" ")}`);
        if (found.truncated) lines.push("(search stopped at its limits: more files may be affected)");
        return { content: [{ type: "text", text: lines.join("\n") }] };
      } catch (error) {
        return { isError: true, content: [{ type: "text", text: (error as Error).message }] };
      }
    },
  );
  return server;
}
