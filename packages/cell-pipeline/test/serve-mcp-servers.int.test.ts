// The host side of a cell's MCP servers with the real bwrap: a connection to a server's socket runs the declared
// command in its own sandbox with stdio carried over the socket; the runs per server are bounded; a server that fails
// on its own leaves a note. (apps/runner/test/mcp-servers.int.test.ts drives the same through the real CLI.)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serveMcpServers } from "../src/serve-mcp-servers.js";

const required = process.env["CI"] === "true";
const hasBwrap = existsSync("/usr/bin/bwrap");
if (!hasBwrap && !required) process.stderr.write("serve-mcp-servers.int.test.ts skipped (set CI=true to make this a failure): no /usr/bin/bwrap\n");

const base = mkdtempSync(join(tmpdir(), "mcp-host-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function workspace(): string {
  const dir = mkdtempSync(join(base, "ws-"));
  writeFileSync(join(dir, "file.txt"), "workspace bytes\n");
  return dir;
}

function open(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => resolve(socket));
    socket.once("error", reject);
  });
}

function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    socket.on("close", () => resolve(text));
  });
}

describe.skipIf(!hasBwrap && !required)("serveMcpServers", () => {
  it("carries stdio over the socket into the server's sandbox, which sees the workspace read-only", async () => {
    const hostDir = join(mkdtempSync(join(base, "h-")), "mcp");
    const script = "read -r line; echo \"got:$line\"; cat /workspace/file.txt; (echo x > /workspace/file.txt) 2>/dev/null && echo WRITE=ok || echo WRITE=denied";
    const host = await serveMcpServers({ servers: [{ name: "echo", command: "/bin/sh", args: ["-c", script], mounts: [] }], workspace: workspace(), hostDir, nodePath: process.execPath, timeoutMs: 30_000 });
    expect(host.sessionMounts.map((mount) => `${mount.target}:${mount.mode}`)).toEqual(["/opt/claude/node:ro", "/opt/wfbench-mcp:ro"]);
    const socket = await open(join(hostDir, "s0.sock"));
    const reply = readUntilClosed(socket);
    socket.write("hello\n");
    expect((await reply).split("\n")).toEqual(["got:hello", "workspace bytes", "WRITE=denied", ""]);
    expect(await host.close()).toEqual([]);
  }, 60_000);

  it("bounds the runs of one server and notes a server that failed on its own", async () => {
    const hostDir = join(mkdtempSync(join(base, "h-")), "mcp");
    const host = await serveMcpServers({
      servers: [
        { name: "slow", command: "/bin/sleep", args: ["30"], mounts: [] },
        { name: "broken", command: "/bin/sh", args: ["-c", "echo broken-server-says >&2; exit 3"], mounts: [] },
      ],
      workspace: workspace(),
      hostDir,
      nodePath: process.execPath,
      timeoutMs: 30_000,
    });
    const held = await Promise.all([0, 1, 2, 3].map(() => open(join(hostDir, "s0.sock"))));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const fifth = await open(join(hostDir, "s0.sock"));
    expect(await readUntilClosed(fifth)).toBe("");
    const broken = await open(join(hostDir, "s1.sock"));
    await readUntilClosed(broken);
    for (const socket of held) socket.destroy();
    const notes = await host.close();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^MCP server broken: ended exited \(exit 3\): broken-server-says$/u);
  }, 60_000);

  it("refuses a socket path the kernel could not bind, before listening", async () => {
    const deep = join(base, "d".repeat(100));
    mkdirSync(deep);
    await expect(serveMcpServers({ servers: [{ name: "a", command: "/bin/true", args: [], mounts: [] }], workspace: workspace(), hostDir: join(deep, "mcp"), nodePath: process.execPath, timeoutMs: 1000 })).rejects.toThrow(/longer than 107 bytes/u);
  });
});
