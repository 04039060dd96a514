import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveClaudeCli } from "@wfbench/claude-cli";
import { runSandboxed } from "../src/run-sandboxed.js";
import { TEST_ENV, hostCommandLines, makeTempDir, skipBwrap, token } from "./helpers.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function temp(prefix: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(dir.cleanup);
  return dir.path;
}
function listen(server: Server, target: string | number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    if (typeof target === "string") server.listen(target, resolve);
    else server.listen(target, "127.0.0.1", resolve);
  });
}
const sh = (script: string): string[] => ["/bin/sh", "-c", script];

describe.skipIf(skipBwrap)("runSandboxed isolation (real bwrap, as the CI user)", () => {
  it("keeps a read-only workspace read-only even against a remount, while a rw workspace is writable", async () => {
    const ws = temp("ro");
    writeFileSync(join(ws, "f"), "original\n");
    const attack = sh("mount -o remount,bind,rw /workspace 2>&1; (echo changed > /workspace/f) 2>&1; cat /workspace/f");
    const ro = await runSandboxed({ workspace: { hostPath: ws, mode: "ro" }, env: TEST_ENV }, attack, { timeoutMs: 10_000 });
    expect(ro.state).toBe("exited");
    expect(ro.stdout.toString()).toMatch(/must be superuser|Operation not permitted/);
    expect(ro.stdout.toString()).toMatch(/Read-only file system/);
    expect(ro.stdout.toString()).not.toMatch(/^changed$/m);
    expect(readFileSync(join(ws, "f"), "utf8")).toBe("original\n");

    const rw = await runSandboxed({ workspace: { hostPath: ws, mode: "rw" }, env: TEST_ENV }, sh("echo changed > /workspace/f"), { timeoutMs: 10_000 });
    expect(rw.state).toBe("exited");
    expect(readFileSync(join(ws, "f"), "utf8")).toBe("changed\n");
  });

  it("runs as uid 1000 with no capabilities, no_new_privs and a seccomp filter", async () => {
    const r = await runSandboxed({ env: TEST_ENV }, sh("id -u; id -g; grep -E '^(CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status"), { timeoutMs: 10_000 });
    const out = r.stdout.toString();
    expect(out).toMatch(/^1000\n1000\n/);
    expect(out).toMatch(/CapEff:\s+0000000000000000/);
    expect(out).toMatch(/CapPrm:\s+0000000000000000/);
    expect(out).toMatch(/NoNewPrivs:\s+1/);
    expect(out).toMatch(/Seccomp:\s+2/);
  });

  it("keeps env secrets out of /proc/1/cmdline and host ps while the command still receives them", async () => {
    const secret = `sk-test-${token()}`;
    let hostLines: string[] = [];
    const r = await runSandboxed(
      { env: { ...TEST_ENV, GATEWAY_TOKEN: secret } },
      sh("tr '\\0' ' ' < /proc/1/cmdline; echo; printenv GATEWAY_TOKEN; echo ready; sleep 1"),
      {
        timeoutMs: 10_000,
        onStdout: (chunk) => {
          if (chunk.toString().includes("ready") && hostLines.length === 0) hostLines = hostCommandLines().map((p) => p.cmdline);
        },
      },
    );
    const [pid1, seen] = r.stdout.toString().split("\n");
    expect(seen).toBe(secret);
    // The command is pid 1 itself (--as-pid-1); bwrap, with its --args, stays in the host's pid namespace.
    expect(pid1).toMatch(/^\/bin\/sh -c tr /);
    expect(pid1).not.toContain(secret);
    expect(hostLines.some((l) => l.startsWith("/usr/bin/bwrap --args 3 --"))).toBe(true);
    expect(hostLines.filter((l) => l.includes(secret))).toEqual([]);
  });

  it("sees only lo and cannot reach a host TCP port on 127.0.0.1", async () => {
    let accepted = 0;
    const server = createServer((s) => {
      accepted += 1;
      s.on("error", () => undefined);
      s.end("hello\n");
    });
    await listen(server, 0);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const r = await runSandboxed(
      { env: TEST_ENV },
      ["/bin/bash", "-c", `ip -o link show | awk -F': ' '{print $2}'; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo refused`],
      { timeoutMs: 10_000 },
    );
    expect(r.stdout.toString().trim().split("\n")).toEqual(["lo", "refused"]);
    expect(accepted).toBe(0);
    // Control: the port really was reachable from the host.
    await new Promise<void>((resolve, reject) => createConnection(port, "127.0.0.1").on("connect", function (this: import("node:net").Socket) { this.destroy(); resolve(); }).on("error", reject));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accepted).toBe(1);
  });

  it("reaches a granted gateway socket at /run/gateway.sock, and it is absent without the grant", async () => {
    const dir = temp("gw");
    const socketPath = join(dir, "gw.sock");
    const server = createServer((s) => s.on("data", (d) => s.end(`pong:${d.toString()}`)));
    await listen(server, socketPath);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const client = `import socket; s=socket.socket(socket.AF_UNIX); s.connect("/run/gateway.sock"); s.sendall(b"ping"); print(s.recv(100).decode())`;
    const granted = await runSandboxed({ env: TEST_ENV, network: { mode: "gateway-socket", hostSocketPath: socketPath } }, ["/usr/bin/python3", "-c", client], { timeoutMs: 10_000 });
    expect(granted.stdout.toString().trim()).toBe("pong:ping");
    const denied = await runSandboxed({ env: TEST_ENV }, sh("test -e /run/gateway.sock && echo present || echo absent; ls -A /run"), { timeoutMs: 10_000 });
    expect(denied.stdout.toString()).toBe("absent\n");
  });

  it("hides host /tmp, $HOME, /root, /home and /sys", async () => {
    const marker = join(temp("marker"), "host-marker");
    writeFileSync(marker, "x");
    const r = await runSandboxed(
      { env: TEST_ENV },
      sh(`test -e ${marker} && echo marker-visible; ls -A /tmp | wc -l; test -e /root && echo root-visible; test -e ${homedir()} && echo root-visible; ls -A /home; test -e /sys/class && echo sys-visible; ls -A /etc`),
      { timeoutMs: 10_000 },
    );
    const lines = r.stdout.toString().trim().split("\n");
    expect(lines[0]).toBe("0");
    expect(lines[1]).toBe("agent");
    const allowedEtc = ["alternatives", "ca-certificates", "group", "hosts", "nsswitch.conf", "passwd", "resolv.conf", "ssl"];
    expect(lines.slice(2).length).toBeGreaterThan(0);
    expect(lines.slice(2).filter((f) => !allowedEtc.includes(f))).toEqual([]);
    expect(r.stdout.toString()).not.toMatch(/marker-visible|root-visible|sys-visible/);
  });

  it("gives the command exactly the allow-listed environment", async () => {
    const env = { ...TEST_ENV, ONLY_THIS: "yes" };
    const r = await runSandboxed({ env }, ["/usr/bin/env"], { timeoutMs: 10_000 });
    const seen = Object.fromEntries(r.stdout.toString().trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    // bwrap's --chdir exports PWD; nothing else may appear.
    expect(seen).toEqual({ ...env, PWD: "/home/agent" });
  });

  it("mounts a private host home and tmp writable and a single file read-only and executable", async () => {
    const home = temp("home");
    const tmp = temp("tmp");
    const bin = temp("bin");
    writeFileSync(join(bin, "tool"), "#!/bin/sh\necho tool-ran \"$@\"\n", { mode: 0o755 });
    mkdirSync(join(home, ".config"));
    const r = await runSandboxed(
      { env: TEST_ENV, homeHostPath: home, tmpHostPath: tmp, mounts: [{ source: join(bin, "tool"), target: "/opt/claude/tool", mode: "ro" }] },
      sh("echo h > /home/agent/.config/h && echo t > /tmp/t && /opt/claude/tool a b && (echo x > /opt/claude/tool) 2>&1 | grep -c 'Read-only'"),
      { timeoutMs: 10_000 },
    );
    expect(r.stdout.toString()).toBe("tool-ran a b\n1\n");
    expect(readFileSync(join(home, ".config/h"), "utf8")).toBe("h\n");
    expect(readFileSync(join(tmp, "t"), "utf8")).toBe("t\n");
  });

  it("runs the Claude Code native binary mounted read-only at /opt/claude/claude", async () => {
    // Resolved like the claude-session test does, not from a checkout-specific absolute path.
    const cli = await resolveClaudeCli();
    const r = await runSandboxed(
      { env: { ...TEST_ENV, CLAUDE_CONFIG_DIR: "/home/agent/.claude", DISABLE_AUTOUPDATER: "1" }, mounts: [{ source: cli.path, target: "/opt/claude/claude", mode: "ro" }] },
      ["/opt/claude/claude", "--version"],
      { timeoutMs: 30_000 },
    );
    expect(r.state).toBe("exited");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toMatch(/\d+\.\d+\.\d+/);
  });
});
