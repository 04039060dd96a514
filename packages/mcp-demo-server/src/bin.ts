// Entry point of the demo MCP server: `node bin.js --root <dir>`; speaks MCP over stdio (stdout is the protocol).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createDemoMcpServer } from "./create-server.js";

const at = process.argv.indexOf("--root");
const root = at === -1 ? undefined : process.argv[at + 1];
if (root === undefined || !root.startsWith("/")) {
  process.stderr.write("usage: wfbench-mcp-demo-server --root <absolute dir>\n");
  process.exit(2);
}
await createDemoMcpServer({ root }).connect(new StdioServerTransport());
