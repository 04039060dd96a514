import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { runSandboxed, type Mount, type SandboxRunResult } from "@wfbench/sandbox-bwrap";
import type { McpServer } from "@wfbench/task-suite";
import { MCP_RELAY_FILE, SANDBOX_MCP_RELAY_DIR, SANDBOX_NODE, mcpSocketName } from "./build-mcp-config.js";
import { CellPipelineError } from "./errors.js";
import type { SessionSandbox } from "./run-session.js";

// Runs in the cell as `node relay.mjs <socket>`: the CLI's stdio to one server, byte for byte. It holds no secret and
// decides nothing; a relay the agent could replace would only reach the same sandboxed server.
const RELAY_SOURCE = `// wfbench MCP relay: copies stdio to one MCP server socket; the server runs in its own sandbox outside the cell.
import { connect } from "node:net";
const socket = connect(process.argv[2]);
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on("error", (error) => { process.stderr.write("wfbench mcp relay: " + error.message + "\\n"); process.exit(1); });
socket.on("close", () => process.exit(0));
`;

// sockaddr_un.sun_path holds 108 bytes, the terminating NUL included.
const MAX_SOCKET_PATH_BYTES = 107;
const MAX_NOTE_CHARS = 400;
/**
 * Server runs one server may have at once. The CLI opens one connection per session; the agent can reach the socket
 * too (it gains nothing the tools do not give), and this bound keeps it from starting sandboxes without end.
 */
export const MAX_RUNS_PER_SERVER = 4;

/** The host side of a cell's MCP servers while its sessions run. */
export interface McpHost {
  /** What each session sandbox mounts read-only: the node binary and the relay directory (script and sockets). */
  readonly sessionMounts: readonly Mount[];
  /** Stops every server run and the listeners; returns one note per server run that failed on its own. */
  close(): Promise<string[]>;
}

/** Where and how a cell's servers run. */
export interface ServeMcpInput {
  readonly servers: readonly McpServer[];
  /** The cell's workspace on the host: each server sees it read-only at /workspace, live. */
  readonly workspace: string;
  /** A fresh harness-private directory for the relay and the sockets (never mounted writable anywhere). */
  readonly hostDir: string;
  /** Host path of the node binary, mounted read-only at /opt/claude/node in the cell and in each server's sandbox. */
  readonly nodePath: string;
  /** Wall-clock bound of one server run (one session's connection). */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The sandbox a server runs in (default `runSandboxed`); the session's own seam. */
  readonly sandbox?: SessionSandbox;
  /** Extra read-only mounts every server sees (the built index at /workspace/<output>). */
  readonly extraMounts?: readonly Mount[];
}

/**
 * Why a server run counts as failed, or null. A sandbox that never started always counts; otherwise a run stopped
 * because its session hung up or the cell ended is the normal end of a connection, and a server that exits 0 on its
 * own is fine even with unread input (`input-failure`: the client had not closed its side yet).
 */
function describeServerEnd(result: SandboxRunResult, stopped: boolean): string | null {
  const tail = result.stderrTail.trim().slice(-200);
  if (result.state === "spawn-failure" || result.state === "sandbox-setup-failure" || result.state === "cleanup-failure") {
    return `sandbox ${result.state}${result.setupError === null ? "" : ` (${result.setupError})`}: ${tail}`;
  }
  if (stopped || (result.exitCode === 0 && (result.state === "exited" || result.state === "input-failure"))) return null;
  const how = result.state === "exited" || result.state === "input-failure" ? "exited" : result.state;
  return `ended ${how} (exit ${String(result.exitCode)}): ${tail}`;
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Serves each declared MCP server on a socket of the cell's private MCP directory. Every connection (one per session:
 * the CLI starts the relay) runs the server's command in a sandbox of its own: the workspace read-only, no network,
 * fresh home and tmp, the host's environment never inherited, only node and the server's declared mounts (read-only).
 * Nothing it writes survives, and the oracle is staged only after the sessions. Trusts the validated declarations.
 * @throws {CellPipelineError} CELL_PIPELINE_INPUT_INVALID when a socket path would be too long for the kernel.
 */
export async function serveMcpServers(input: ServeMcpInput): Promise<McpHost> {
  await mkdir(input.hostDir, { mode: 0o700 });
  await writeFile(join(input.hostDir, MCP_RELAY_FILE), RELAY_SOURCE, { mode: 0o444, flag: "wx" });
  const sandbox = input.sandbox ?? runSandboxed;
  const stopAll = new AbortController();
  const signal = input.signal === undefined ? stopAll.signal : AbortSignal.any([stopAll.signal, input.signal]);
  const failures: string[] = [];
  const runs = new Set<Promise<void>>();
  const listeners: Server[] = [];

  const active = new Map<string, number>();
  const serve = (server: McpServer, socket: Socket): void => {
    if ((active.get(server.name) ?? 0) >= MAX_RUNS_PER_SERVER) {
      socket.destroy();
      return;
    }
    active.set(server.name, (active.get(server.name) ?? 0) + 1);
    const hangUp = new AbortController();
    socket.once("close", () => hangUp.abort());
    socket.on("error", () => hangUp.abort());
    const note = (what: string): void => {
      failures.push(`MCP server ${server.name}: ${what}`.slice(0, MAX_NOTE_CHARS));
    };
    const run = sandbox(
      {
        workspace: { hostPath: input.workspace, mode: "ro" },
        mounts: [{ source: input.nodePath, target: SANDBOX_NODE, mode: "ro" }, ...(input.extraMounts ?? []), ...server.mounts.map((mount) => ({ ...mount, mode: "ro" as const }))],
        env: { HOME: "/home/agent", TMPDIR: "/tmp", PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
        network: { mode: "none" },
        hostname: "mcp-server",
      },
      [server.command, ...server.args],
      {
        timeoutMs: input.timeoutMs,
        stdin: socket,
        maxStdoutBytes: 0,
        onStdout: (chunk) => {
          if (!socket.destroyed) socket.write(chunk);
        },
        signal: AbortSignal.any([hangUp.signal, signal]),
      },
    )
      .then((result) => {
        const problem = describeServerEnd(result, hangUp.signal.aborted || signal.aborted);
        if (problem !== null) note(problem);
        socket.end();
      })
      .catch((error: unknown) => {
        note(`could not start: ${(error as Error).message}`);
        socket.destroy();
      });
    runs.add(run);
    void run.finally(() => {
      runs.delete(run);
      active.set(server.name, (active.get(server.name) ?? 1) - 1);
    });
  };

  const sessionMounts: Mount[] = [
    { source: input.nodePath, target: SANDBOX_NODE, mode: "ro" },
    { source: input.hostDir, target: SANDBOX_MCP_RELAY_DIR, mode: "ro" },
  ];
  try {
    for (const [index, server] of input.servers.entries()) {
      const path = join(input.hostDir, mcpSocketName(index));
      if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
        throw new CellPipelineError("CELL_PIPELINE_INPUT_INVALID", `the MCP socket path ${path} is longer than ${MAX_SOCKET_PATH_BYTES} bytes: give the runner a shorter scratch directory`);
      }
      const listener = createServer((socket) => serve(server, socket));
      listeners.push(listener);
      await listen(listener, path);
    }
  } catch (error) {
    for (const listener of listeners) listener.close();
    throw error;
  }
  return {
    sessionMounts,
    async close(): Promise<string[]> {
      // Runs first: a listener's close waits for its open connections, which end only with their server run.
      stopAll.abort();
      await Promise.all([...runs]);
      await Promise.all(listeners.map((listener) => new Promise<void>((resolve) => listener.close(() => resolve()))));
      return failures;
    },
  };
}
