// Bundles the demo server, the MCP SDK and zod included, into one ES module that plain node runs from a read-only
// mount (a suite's `mcp_servers` entry): `node packages/mcp-demo-server/scripts/bundle.mjs <out.mjs>`.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const out = process.argv[2];
if (out === undefined || !out.endsWith(".mjs")) {
  process.stderr.write("usage: node bundle.mjs <out.mjs>\n");
  process.exit(2);
}
await build({
  entryPoints: [fileURLToPath(new URL("../src/bin.ts", import.meta.url))],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: out,
  // Some SDK dependencies are CommonJS and call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as wfbenchCreateRequire } from 'node:module'; const require = wfbenchCreateRequire(import.meta.url);" },
  logLevel: "warning",
});
