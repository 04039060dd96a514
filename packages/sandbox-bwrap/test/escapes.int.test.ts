// Realistic escape attempts from inside the sandbox, run as the CI user (root on CI). Each test names the isolation
// property it attacks; each would fail if that property were missing (see the controls inside the tests).
import { execFile, spawn } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SandboxRunResult } from "../src/run-result.js";
import { runSandboxed } from "../src/run-sandboxed.js";
import { TEST_ENV, livePidsMatching, makeTempDir, skipBwrap, token } from "./helpers.js";

const execFileAsync = promisify(execFile);
const HARNESS = fileURLToPath(new URL("./fixtures/fd-leak/harness.mts", import.meta.url));
const FORGE = fileURLToPath(new URL("./fixtures/pid1-forge", import.meta.url));
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function temp(prefix: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(dir.cleanup);
  return dir.path;
}
const sh = (script: string): string[] => ["/bin/sh", "-c", script];

describe.skipIf(skipBwrap)("escape attempts from inside the sandbox (real bwrap)", () => {
  it("fd leak: a directory fd the harness inherited without O_CLOEXEC does not reach the sandbox", async () => {
    const dir = temp("fdleak");
    writeFileSync(join(dir, "secret"), "host-secret\n");
    const dirFd = openSync(dir, "r");
    cleanups.push(() => closeSync(dirFd));
    // The harness is a separate node process whose fd 40 is the host directory, inheritable (no O_CLOEXEC).
    const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe"];
    while (stdio.length < 40) stdio.push("ignore");
    stdio.push(dirFd);
    const child = spawn(process.execPath, ["--conditions=@wfbench/source", "--import", "tsx", HARNESS], { cwd: fileURLToPath(new URL("..", import.meta.url)), env: {}, stdio });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    await new Promise((resolve) => child.on("close", resolve));
    const report = JSON.parse(Buffer.concat(chunks).toString()) as { inheritable: boolean; state: string; stdout: string; stderr: string };
    // Control: the harness really holds an inheritable fd 40 onto the host directory.
    expect(report.inheritable).toBe(true);
    expect(report.state).toBe("exited");
    const [fds, ...rest] = report.stdout.split("\n");
    const open = (fds ?? "").trim().split(" ").map((entry) => entry.split("=") as [string, string]);
    expect(open.map(([fd]) => fd)).toEqual(expect.arrayContaining(["0", "1", "2"]));
    // Beyond stdio and ls's own handle (3), an fd may exist only as /dev/null (neutralised, not the host's object).
    expect(open.filter(([fd, target]) => !["0", "1", "2", "3"].includes(fd) && target !== "/dev/null")).toEqual([]);
    expect(rest.join("\n")).not.toContain("host-secret");
    expect(existsSync(join(dir, "written"))).toBe(false);
  });

  it("/proc/sys: the sandbox user (host root's uid on CI) cannot write a global sysctl", async () => {
    const before = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    // Writes back the value it read, so even a regression leaves the host setting as it was.
    const r = await runSandboxed(
      { env: TEST_ENV },
      sh("v=$(cat /proc/sys/kernel/core_pattern); (printf '%s\\n' \"$v\" > /proc/sys/kernel/core_pattern) 2>&1 && echo wrote; grep ' /proc/sys ' /proc/self/mountinfo | cut -d' ' -f5,6"),
      { timeoutMs: 10_000 },
    );
    const out = r.stdout.toString();
    expect(out).toMatch(/Read-only file system/);
    expect(out).not.toMatch(/^wrote$/m);
    expect(out).toMatch(/^\/proc\/sys ro,/m);
    expect(readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(before);
  });

  it("/proc: outside the sandbox's own pid dirs, only capability-checked or harmless files are writable", async () => {
    const r = await runSandboxed(
      { env: TEST_ENV },
      sh("find /proc \\( -path '/proc/[0-9]*' -o -path /proc/self -o -path /proc/thread-self \\) -prune -o -writable -print 2>/dev/null"),
      { timeoutMs: 20_000 },
    );
    const writable = r.stdout.toString().trim().split("\n").filter((l) => l !== "");
    // mtrr refuses writers without CAP_SYS_ADMIN; pressure/* only registers PSI poll triggers. Anything else that a
    // kernel adds here is writable by host root's uid and must be reviewed (and covered in buildBwrapArgv).
    const harmless = new Set(["/proc/mtrr", "/proc/pressure/io", "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/irq"]);
    expect(writable.filter((p) => !harmless.has(p))).toEqual([]);
  });

  it("symlinked mount target: a link planted in a persisted home cannot make bwrap create paths on the host", async () => {
    const home = temp("home");
    const victim = temp("victim");
    const empty = temp("empty");
    // bwrap resolves mount targets after pivot_root, where the host root is reachable as /oldroot.
    symlinkSync(`/oldroot${victim}`, join(home, ".claude"));
    const r = await runSandboxed(
      { env: TEST_ENV, homeHostPath: home, mounts: [{ source: empty, target: "/home/agent/.claude/skills", mode: "ro" }] },
      ["/bin/true"],
      { timeoutMs: 10_000 },
    );
    expect(r.state).toBe("sandbox-setup-failure");
    expect(r.setupError).toMatch(/symlink/);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("symlinked mount target: the same holds for a tmpfs overlay and a mount under a writable workspace", async () => {
    const ws = temp("ws");
    const victim = temp("victim2");
    const dep = temp("dep");
    symlinkSync(`/oldroot${victim}`, join(ws, "node_modules"));
    const tmpfs = await runSandboxed(
      { env: TEST_ENV, workspace: { hostPath: ws, mode: "rw" }, tmpfs: ["/workspace/node_modules/.vite-temp"] },
      ["/bin/true"],
      { timeoutMs: 10_000 },
    );
    expect(tmpfs.state).toBe("sandbox-setup-failure");
    const mount = await runSandboxed(
      { env: TEST_ENV, workspace: { hostPath: ws, mode: "rw" }, mounts: [{ source: dep, target: "/workspace/node_modules/dep", mode: "ro" }] },
      ["/bin/true"],
      { timeoutMs: 10_000 },
    );
    expect(mount.state).toBe("sandbox-setup-failure");
    expect(readdirSync(victim)).toEqual([]);
    // Control: a real directory at the same place is accepted.
    const ws2 = temp("ws2");
    mkdirSync(join(ws2, "node_modules"));
    const ok = await runSandboxed(
      { env: TEST_ENV, workspace: { hostPath: ws2, mode: "rw" }, mounts: [{ source: dep, target: "/workspace/node_modules/dep", mode: "ro" }] },
      sh("test -d /workspace/node_modules/dep && echo mounted"),
      { timeoutMs: 10_000 },
    );
    expect(ok.stdout.toString()).toBe("mounted\n");
  });

  it("host abstract Unix sockets are unreachable (separate network namespace)", async () => {
    const name = `wfbench-audit-${token()}`;
    let accepted = 0;
    const server: Server = createServer((s) => {
      accepted += 1;
      s.on("error", () => undefined);
      s.end("hi");
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(`\0${name}`, resolve);
    });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    // libuv binds the abstract name NUL-padded to the full sun_path, so the client pads it the same way.
    const client = `import socket\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(b"\\0${name}".ljust(108, b"\\0")); print("connected")\nexcept OSError as e: print("refused", e.errno)`;
    const r = await runSandboxed({ env: TEST_ENV }, ["/usr/bin/python3", "-c", client], { timeoutMs: 10_000 });
    expect(r.stdout.toString().trim()).toBe("refused 111");
    expect(accepted).toBe(0);
    // Control: the same client on the host connects.
    const host = await execFileAsync("/usr/bin/python3", ["-c", client]);
    expect(host.stdout.trim()).toBe("connected");
  });

  it("read-only subpath of a writable workspace: no write, rename, delete or chmod reaches the host", async () => {
    const ws = temp("rosub");
    mkdirSync(join(ws, ".claude/skills/review"), { recursive: true });
    writeFileSync(join(ws, ".claude/skills/review/SKILL.md"), "original\n");
    const r = await runSandboxed(
      { env: TEST_ENV, workspace: { hostPath: ws, mode: "rw", readOnlySubpaths: [".claude/skills/review"] } },
      sh(
        [
          "cd /workspace",
          "(echo hacked > .claude/skills/review/SKILL.md) 2>/dev/null && echo wrote",
          "mv .claude/skills/review .claude/skills/old 2>/dev/null && echo renamed",
          "mv .claude/skills .claude/skills-old 2>/dev/null && echo renamed-parent",
          "rm -rf .claude/skills/review 2>/dev/null; test -f .claude/skills/review/SKILL.md || echo deleted",
          "chmod 777 .claude/skills/review/SKILL.md 2>/dev/null && echo chmodded",
          "echo ok > other.txt && echo other-written",
        ].join("; "),
      ),
      { timeoutMs: 10_000 },
    );
    expect(r.stdout.toString()).toBe("other-written\n");
    expect(readFileSync(join(ws, ".claude/skills/review/SKILL.md"), "utf8")).toBe("original\n");
    expect(readFileSync(join(ws, "other.txt"), "utf8")).toBe("ok\n");
  });

  it("env and process view: no bwrap process inside, pid 1 is the command with exactly the policy's env, only the sandbox's own processes are visible", async () => {
    const r = await runSandboxed(
      { env: TEST_ENV },
      sh("echo $$; cat /proc/[0-9]*/comm | grep -c bwrap; tr '\\0' '\\n' < /proc/1/environ | sort | tr '\\n' ' '; echo; ls /proc | grep -c '^[0-9]'"),
      { timeoutMs: 10_000 },
    );
    const [pid, bwraps, environ, pidCount] = r.stdout.toString().trim().split("\n");
    expect(pid).toBe("1");
    expect(bwraps).toBe("0");
    // bwrap itself runs with an empty env outside; the command sees the allow-list (+ bwrap's PWD), nothing of the host's.
    const expected = Object.entries({ ...TEST_ENV, PWD: "/home/agent" }).map(([k, v]) => `${k}=${v}`);
    expect(environ?.trim().split(" ")).toEqual(expected.sort());
    // sh, ls, grep (and nothing of the host's hundreds).
    expect(Number(pidCount)).toBeLessThanOrEqual(4);
  });

  it("a double-forked, setsid'd daemon that ignores SIGTERM and SIGHUP does not survive the timeout", async () => {
    const marker = `781.${Date.now() % 1_000_000}9`;
    let seen: number[] = [];
    const r = await runSandboxed(
      { env: TEST_ENV },
      sh(`(setsid /bin/sh -c "trap '' TERM HUP; exec /bin/sleep ${marker}" </dev/null >/dev/null 2>&1 &); sleep 0.2; echo ready; exec /bin/sleep 300`),
      {
        timeoutMs: 700,
        graceMs: 200,
        onStdout: (chunk) => {
          if (chunk.toString().includes("ready")) seen = livePidsMatching(marker);
        },
      },
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(["timeout", "forced-kill"]).toContain(r.state);
    let left = livePidsMatching(marker);
    for (let i = 0; i < 80 && left.length > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      left = livePidsMatching(marker);
    }
    expect(left).toEqual([]);
  });
});

// The evidence is the command's stdout. The runner stages the Claude Code CLI execute-only, so the kernel makes it
// non-dumpable and the agent's own processes (same uid, same pid namespace) cannot take its stdout or read its memory.
// These tests model that: an execute-only copy of dash holds stdout and starts the "agent" (fixtures/pid1-forge), whose
// own stdout is /dev/null, and which attacks whatever is pid 1 in the namespace. With bwrap's init as pid 1 (dumpable,
// same uid, holding the same stdout and bwrap's parsed --args with every --setenv value) each route below succeeded.
describe.skipIf(skipBwrap)("pid 1 of the sandbox cannot be used to forge the evidence (real bwrap)", () => {
  const marker = `FORGED-${token()}`;
  const secret = `wfb-secret-${token()}${token()}`;
  let result: SandboxRunResult;
  let report: Record<string, string> = {};
  let dir: { path: string; cleanup: () => void };

  beforeAll(async () => {
    dir = makeTempDir("pid1");
    const holder = join(dir.path, "holder");
    const reports = join(dir.path, "reports");
    mkdirSync(holder);
    mkdirSync(reports, { mode: 0o777 });
    chmodSync(reports, 0o777);
    copyFileSync("/usr/bin/dash", join(holder, "sh"));
    chmodSync(join(holder, "sh"), 0o111);
    writeFileSync(join(reports, "needle"), secret);
    result = await runSandboxed(
      {
        env: { ...TEST_ENV, WFBENCH_CELL_SECRET: secret },
        mounts: [
          { source: holder, target: "/opt/holder", mode: "ro" },
          { source: FORGE, target: "/opt/forge", mode: "ro" },
          { source: reports, target: "/opt/reports", mode: "rw" },
        ],
      },
      ["/opt/holder/sh", "-c", `env -u WFBENCH_CELL_SECRET /usr/bin/python3 /opt/forge/forge.py ${marker} /opt/reports >/dev/null; echo holder-done`],
      { timeoutMs: 15_000, stdin: "" },
    );
    const text = existsSync(join(reports, "report")) ? readFileSync(join(reports, "report"), "utf8") : "";
    report = Object.fromEntries(text.trim().split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  }, 30_000);
  afterAll(() => dir.cleanup());

  const context = (): string => `report ${JSON.stringify(report)}\nstdout ${JSON.stringify(result.stdout.toString())}\nstderr ${result.stderrTail.slice(-1500)}`;

  it("the run completes untouched: stdout is exactly the holder's own output, no marker", () => {
    expect(result.state, context()).toBe("exited");
    expect(result.exitCode, context()).toBe(0);
    expect(result.stdout.toString(), context()).toBe("holder-done\n");
    expect(report["DONE"], context()).toBe("yes");
  });

  it("controls: the holder is non-dumpable (exec-only), while /proc/self/mem opens", () => {
    expect(report["HOLDER_MEM"], context()).toBe("EACCES");
    expect(report["SELF_MEM"], context()).toBe("open");
  });

  it("no bwrap process sits in the namespace: pid 1 is the command itself", () => {
    expect(report["PID1_COMM"], context()).toBe("sh");
    expect(report["HOLDER_IS_PID1"], context()).toBe("yes");
  });

  it("open(/proc/1/fd/1, O_WRONLY) fails", () => {
    expect(report["PROC_FD"], context()).toMatch(/^E[A-Z]+$/);
  });

  it("pidfd_open(1) + pidfd_getfd(1) fails with EPERM (pidfd_getfd is denied by seccomp, even on oneself)", () => {
    expect(report["PIDFD_OPEN"], context()).toBe("ok");
    expect(report["PIDFD_GETFD"], context()).toBe("EPERM");
    expect(report["SELF_PIDFD_GETFD"], context()).toBe("EPERM");
  });

  it("/proc/1/mem cannot be opened for writing (on x86_64 a write there injected code that printed the marker)", () => {
    expect(report["PROC_MEM"], context()).toMatch(/^(EACCES|EPERM)$/);
  });

  it("pid 1's memory, which held every --setenv value, is unreadable through /proc/1/mem and process_vm_readv", () => {
    expect(report["PID1_SECRET"], context()).toMatch(/^(EACCES|EPERM)$/);
    expect(report["PROCESS_VM_READV"], context()).toBe("EPERM");
  });
});
