// The demo MCP server as Claude Code would start it: a child process speaking MCP over stdio, driven by the official
// SDK's client. Hostile workspace content (a symlink out of the tree, an oracle stage, node_modules) is never read.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "mcp-demo-"));
const outside = mkdtempSync(join(tmpdir(), "mcp-demo-outside-"));
let client: Client;

beforeAll(async () => {
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, "test"));
  writeFileSync(join(root, "src/math.js"), "export function clamp(v, lo, hi) {\n  return Math.min(Math.max(v, lo), hi);\n}\nexport const clamped = 1;\n");
  writeFileSync(join(root, "test/math.test.js"), 'import { clamp } from "../src/math.js";\nclamp(1, 0, 2);\n');
  writeFileSync(join(outside, "secret.js"), "clamp(SECRET)\n");
  symlinkSync(outside, join(root, "linked"));
  mkdirSync(join(root, ".wfbench-oracle-0123"));
  writeFileSync(join(root, ".wfbench-oracle-0123/hidden.oracle.test.ts"), "clamp(HIDDEN)\n");
  mkdirSync(join(root, "node_modules/x"), { recursive: true });
  writeFileSync(join(root, "node_modules/x/index.js"), "clamp(DEP)\n");
  client = new Client({ name: "wfbench-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ["--conditions=@wfbench/source", "--import", "tsx", BIN, "--root", root], stderr: "pipe" }));
}, 60_000);

afterAll(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("the demo MCP server over stdio", () => {
  it("lists exactly its find_references and impact tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["find_references", "impact"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["symbol"] });
  });

  it("answers whole-word references in path order, and reads nothing behind a link, a stage or node_modules", async () => {
    const result = await client.callTool({ name: "find_references", arguments: { symbol: "clamp" } });
    expect(result.isError).not.toBe(true);
    const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join("\n");
    expect(text.split("\n")).toEqual([
      "src/math.js:1: export function clamp(v, lo, hi) {",
      'test/math.test.js:1: import { clamp } from "../src/math.js";',
      "test/math.test.js:2: clamp(1, 0, 2);",
    ]);
    expect(text).not.toMatch(/SECRET|HIDDEN|DEP|clamped/u);
  });

  it("answers impact with each mentioning file, its count, and the tests to re-run", async () => {
    const result = await client.callTool({ name: "impact", arguments: { symbol: "clamp" } });
    expect(result.isError).not.toBe(true);
    const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join("\n");
    expect(text.split("\n")).toEqual(["src/math.js: 1 mention(s)", "test/math.test.js: 2 mention(s) (test)", "tests to re-run: test/math.test.js"]);
    const none = await client.callTool({ name: "impact", arguments: { symbol: "nowhere" } });
    expect(JSON.stringify(none.content)).toContain("nothing mentions nowhere");
  });

  it("answers a non-identifier symbol with an error result instead of a regex", async () => {
    const result = await client.callTool({ name: "find_references", arguments: { symbol: ".*" } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("must be an identifier");
  });
});
