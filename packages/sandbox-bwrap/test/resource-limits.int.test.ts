// Descriptor limits from both sides: what a sandboxed process may hold (RLIMIT_NOFILE lowered by the sandbox, not
// raisable from inside), and what runSandboxed does when the harness itself has none left (a value, never a throw).
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runSandboxed } from "../src/index.js";
import { DEFAULT_SANDBOX_OPEN_FILES } from "../src/schema.js";
import { TEST_ENV, skipBwrap } from "./helpers.js";

const HARNESS = fileURLToPath(new URL("./fixtures/fd-exhaustion/harness.mts", import.meta.url));
const sh = (script: string): string[] => ["/bin/sh", "-c", script];
const policy = { env: TEST_ENV };

describe.skipIf(skipBwrap)("descriptor limits (real bwrap)", () => {
  it("lowers RLIMIT_NOFILE (soft = hard) for the command, which stays pid 1 and cannot raise it", async () => {
    const r = await runSandboxed(policy, sh(`echo "soft=$(ulimit -Sn) hard=$(ulimit -Hn) pid=$$"; ulimit -n ${DEFAULT_SANDBOX_OPEN_FILES * 4} 2>/dev/null && echo raised || echo refused`), { timeoutMs: 10_000 });
    expect(r.state).toBe("exited");
    expect(r.stdout.toString()).toBe(`soft=${DEFAULT_SANDBOX_OPEN_FILES} hard=${DEFAULT_SANDBOX_OPEN_FILES} pid=1\nrefused\n`);
    // Control: the harness's own limit is higher, so the value above was set by the sandbox, not inherited.
    expect(Number(execFileSync("/bin/sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }).trim())).toBeGreaterThan(DEFAULT_SANDBOX_OPEN_FILES);
  });

  it("takes a policy's maxOpenFiles, and a process inside gets EMFILE at that bound", async () => {
    const script = "import os\nn = 0\ntry:\n    while True:\n        os.open('/dev/null', os.O_RDONLY); n += 1\nexcept OSError as e:\n    print(n, e.errno)\n";
    const r = await runSandboxed({ ...policy, maxOpenFiles: 100 }, ["/usr/bin/python3", "-c", script], { timeoutMs: 10_000 });
    expect(r.state).toBe("exited");
    const [opened, errno] = r.stdout.toString().trim().split(" ").map(Number);
    // 100 minus stdio and whatever python keeps open; EMFILE is errno 24.
    expect(errno).toBe(24);
    expect(opened).toBeGreaterThan(80);
    expect(opened).toBeLessThan(100);
  });

  it("refuses a maxOpenFiles outside 64…1048576 at the schema", async () => {
    await expect(runSandboxed({ ...policy, maxOpenFiles: 8 }, ["/bin/true"], { timeoutMs: 10_000 })).rejects.toMatchObject({ code: "SANDBOX_POLICY_INVALID" });
  });

  it("a harness out of descriptors gets spawn-failure (a value) until enough are free, then the command runs", async () => {
    // The harness runs with a 256-descriptor limit, exhausts it, and frees one more before each attempt.
    const child = spawn("/usr/bin/prlimit", ["--nofile=256:256", "--", process.execPath, "--conditions=@wfbench/source", "--import", "tsx", HARNESS], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code, Buffer.concat(err).toString()).toBe(0);
    const report = JSON.parse(Buffer.concat(out).toString()) as { attempts: Array<{ free: number; state?: string; setupError?: string | null; stdout?: string; threw?: string }> };
    expect(report.attempts.filter((a) => a.threw !== undefined)).toEqual([]);
    // Starved: bwrap cannot be given its pipes, which is spawn-failure naming EMFILE, not a crash.
    const starved = report.attempts.filter((a) => a.state !== "exited");
    expect(starved.length).toBeGreaterThan(0);
    for (const a of starved) {
      expect(a.state).toBe("spawn-failure");
      expect(a.setupError).toMatch(/EMFILE/u);
    }
    // Starved attempts leak nothing: as soon as a spawn's descriptors are free, every later attempt runs the command.
    const firstRun = report.attempts.findIndex((a) => a.state === "exited");
    expect(firstRun).toBeGreaterThan(0);
    expect(firstRun).toBeLessThanOrEqual(24);
    for (const a of report.attempts.slice(firstRun)) {
      expect(a.state).toBe("exited");
      expect(a.stdout).toBe("ran\n");
    }
  });
});
