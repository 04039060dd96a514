import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { buildBwrapArgv, buildBwrapCommandLine, encodeArgsFile } from "../src/build-argv.js";
import { compileSeccompFilter } from "../src/compile-seccomp.js";
import { runSandboxed } from "../src/run-sandboxed.js";
import { spawnBwrap } from "../src/run-sandboxed.js";
import { TEST_ENV, hostCommandLines, livePidsMatching, makeTempDir, skipBwrap, token } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const sh = (script: string): string[] => ["/bin/sh", "-c", script];
const policy = { env: TEST_ENV };

/** A script whose setsid'd grandchild sleeps with a unique duration, so the host can find it by command line. */
function daemonScript(marker: string): string {
  return `setsid /bin/sleep ${marker} </dev/null >/dev/null 2>&1 & sleep 0.2; echo ready; /bin/sleep 300`;
}
async function waitGone(marker: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let pids = livePidsMatching(marker);
  while (pids.length > 0 && Date.now() < deadline) {
    await sleep(25);
    pids = livePidsMatching(marker);
  }
  return pids;
}

describe.skipIf(skipBwrap)("runSandboxed lifecycle (real bwrap)", () => {
  describe("exit codes", () => {
    it.each([
      ["exit 0", 0, true],
      ["exit 7", 7, false],
      // A signal the kernel forces on the command (a fault) still comes back as 128+N.
      ["exec /usr/bin/python3 -c 'import ctypes; ctypes.string_at(0)'", 139, false],
    ])("`%s` → state exited, exit code %i", async (script, code, ok) => {
      const r = await runSandboxed(policy, sh(script), { timeoutMs: 10_000 });
      expect(r.state).toBe("exited");
      expect(r.exitCode).toBe(code);
      expect(r.ok).toBe(ok);
      expect(r.backend).toBe("bwrap");
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
    });
  });

  describe("the command is pid 1 of its namespace (--as-pid-1)", () => {
    it("ignores signals it has no handler for when they come from inside, even SIGKILL: nothing inside can kill it", async () => {
      const r = await runSandboxed(policy, sh("kill -TERM $$; kill -KILL $$; /bin/kill -KILL 1; echo survived; exit 3"), { timeoutMs: 10_000 });
      expect(r.state).toBe("exited");
      expect(r.exitCode).toBe(3);
      expect(r.stdout.toString()).toBe("survived\n");
      // Control: with a handler the same signal is delivered, as for any process.
      const trapped = await runSandboxed(policy, sh("trap 'echo trapped; exit 5' TERM; kill -TERM $$; sleep 5"), { timeoutMs: 10_000 });
      expect(trapped.exitCode).toBe(5);
      expect(trapped.stdout.toString()).toBe("trapped\n");
    });

    it("on timeout, a command that leaves SIGTERM at its default is SIGKILLed at once (state forced-kill), not after the grace", async () => {
      const started = Date.now();
      const r = await runSandboxed(policy, sh("echo ready; exec /bin/sleep 300"), { timeoutMs: 300, graceMs: 20_000 });
      expect(r.state).toBe("forced-kill");
      expect(r.signal).toBe("SIGKILL");
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it("an orphan is reparented to the command (no bwrap init reaps it) and dies with it when the command exits", async () => {
      const marker = `779.${Date.now() % 1_000_000}7`;
      // The orphan's parent is pid 1 (the command), not a bwrap init; when pid 1 exits the kernel kills the namespace.
      const r = await runSandboxed(policy, sh(`(/bin/sleep ${marker} </dev/null >/dev/null 2>&1 &); sleep 0.2; ps -o ppid= -C sleep | head -1 | tr -d ' '`), {
        timeoutMs: 10_000,
      });
      expect(r.state).toBe("exited");
      expect(r.stdout.toString().trim()).toBe("1");
      expect(await waitGone(marker, 2_000)).toEqual([]);
    });
  });

  describe("sandbox setup failures", () => {
    it("reports a missing mount source as sandbox-setup-failure without spawning", async () => {
      const r = await runSandboxed({ ...policy, mounts: [{ source: "/nonexistent/wfbench-src", target: "/opt/x", mode: "ro" }] }, ["/bin/true"], { timeoutMs: 10_000 });
      expect(r.state).toBe("sandbox-setup-failure");
      expect(r.exitCode).toBeNull();
      expect(r.setupError).toMatch(/\/nonexistent\/wfbench-src does not exist/);
    });

    it("classifies bwrap's own exit 1 for a missing source (no exit record) apart from a command's exit 1", async () => {
      const args = encodeArgsFile(buildBwrapArgv({ ...policy, mounts: [{ source: "/nonexistent/wfbench-src", target: "/opt/x", mode: "ro" }] }));
      const filter = compileSeccompFilter(process.arch);
      const failed = await spawnBwrap("/usr/bin/bwrap", args, filter, buildBwrapCommandLine(["/bin/true"]), { timeoutMs: 10_000 });
      expect(failed.state).toBe("sandbox-setup-failure");
      expect(failed.exitCode).toBeNull();
      expect(failed.setupError).toMatch(/bwrap exited 1 without an exit record/);
      expect(failed.stderrTail).toMatch(/Can't find source path/);

      const commandFailed = await runSandboxed(policy, sh("exit 1"), { timeoutMs: 10_000 });
      expect(commandFailed.state).toBe("exited");
      expect(commandFailed.exitCode).toBe(1);
    });

    it("reports a command missing inside the sandbox as sandbox-setup-failure", async () => {
      const r = await runSandboxed(policy, ["/opt/not-mounted/tool"], { timeoutMs: 10_000 });
      expect(r.state).toBe("sandbox-setup-failure");
      expect(r.stderrTail).toMatch(/execvp/);
    });

    it("reports a missing bwrap binary as spawn-failure", async () => {
      const r = await runSandboxed(policy, ["/bin/true"], { timeoutMs: 10_000, bwrapPath: "/nonexistent/bwrap" });
      expect(r.state).toBe("spawn-failure");
      expect(r.setupError).toMatch(/ENOENT/);
    });
  });

  describe("timeout and cancellation", () => {
    it("on timeout sends SIGTERM to the command, whose trap exit code propagates (state timeout)", async () => {
      const r = await runSandboxed(policy, sh("trap 'echo got-term; exit 42' TERM; echo ready; sleep 300 & wait"), { timeoutMs: 600, graceMs: 3_000 });
      expect(r.state).toBe("timeout");
      expect(r.exitCode).toBe(42);
      expect(r.stdout.toString()).toBe("ready\ngot-term\n");
    });

    it("kills a setsid-daemonised grandchild on timeout, after the grace period (state forced-kill)", async () => {
      const marker = `777.${Date.now() % 1_000_000}1`;
      let seenDuringRun: number[] = [];
      const r = await runSandboxed(policy, sh(`trap '' TERM; ${daemonScript(marker)}`), {
        timeoutMs: 800,
        graceMs: 300,
        onStdout: (chunk) => {
          if (chunk.toString().includes("ready")) seenDuringRun = livePidsMatching(marker);
        },
      });
      expect(seenDuringRun.length).toBeGreaterThan(0);
      expect(r.state).toBe("forced-kill");
      expect(r.signal).toBe("SIGKILL");
      expect(await waitGone(marker, 2_000)).toEqual([]);
    });

    it("cancels via AbortSignal: the daemonised grandchild is gone within 15 s of the abort", async () => {
      const marker = `778.${Date.now() % 1_000_000}3`;
      const controller = new AbortController();
      let seenDuringRun: number[] = [];
      // Measured from the abort itself, so the time runSandboxed takes to return counts too.
      let abortedAt = Number.POSITIVE_INFINITY;
      const promise = runSandboxed(policy, sh(daemonScript(marker)), {
        timeoutMs: 60_000,
        graceMs: 1_000,
        signal: controller.signal,
        onStdout: (chunk) => {
          if (chunk.toString().includes("ready")) {
            seenDuringRun = livePidsMatching(marker);
            abortedAt = Date.now();
            controller.abort();
          }
        },
      });
      const r = await promise;
      expect(seenDuringRun.length).toBeGreaterThan(0);
      expect(r.state).toBe("cancelled");
      const survivors = await waitGone(marker, 15_000);
      expect(survivors).toEqual([]);
      expect(Date.now() - abortedAt).toBeLessThanOrEqual(15_000);
    });

    it("does not spawn when the signal is already aborted", async () => {
      const dir = makeTempDir("never");
      cleanups.push(dir.cleanup);
      const r = await runSandboxed({ ...policy, tmpHostPath: dir.path }, sh("touch /tmp/ran"), { timeoutMs: 10_000, signal: AbortSignal.abort() });
      expect(r.state).toBe("cancelled");
      expect(existsSync(join(dir.path, "ran"))).toBe(false);
    });
  });

  describe("run options", () => {
    // Node turns a timer beyond 2^31-1 ms (or NaN) into 1 ms: such a timeout would kill every run at once.
    it.each([
      ["a timeout beyond the timer range", { timeoutMs: 2 ** 31 }],
      ["a NaN timeout", { timeoutMs: Number.NaN }],
      ["a negative grace", { timeoutMs: 1_000, graceMs: -1 }],
      ["a negative stdout bound", { timeoutMs: 1_000, maxStdoutBytes: -1 }],
      ["a fractional stdout bound", { timeoutMs: 1_000, maxStdoutBytes: 0.5 }],
    ])("refuses %s with SANDBOX_OPTIONS_INVALID before spawning", async (_name, options) => {
      await expect(runSandboxed(policy, ["/bin/true"], options)).rejects.toMatchObject({ code: "SANDBOX_OPTIONS_INVALID" });
    });
  });

  describe("stdio", () => {
    it("keeps nothing with a zero stdout bound and still flags that output was produced", async () => {
      const quiet = await runSandboxed(policy, ["/bin/true"], { timeoutMs: 10_000, maxStdoutBytes: 0 });
      expect(quiet.stdout.length).toBe(0);
      expect(quiet.stdoutOverflow).toBe(false);
      const noisy = await runSandboxed(policy, ["/bin/echo", "hidden"], { timeoutMs: 10_000, maxStdoutBytes: 0 });
      expect(noisy.state).toBe("exited");
      expect(noisy.stdout.length).toBe(0);
      expect(noisy.stdoutOverflow).toBe(true);
    });

    it("feeds stdin from a string and from a stream", async () => {
      const fromString = await runSandboxed(policy, ["/bin/cat"], { timeoutMs: 10_000, stdin: "hello\n" });
      expect(fromString.stdout.toString()).toBe("hello\n");
      const fromStream = await runSandboxed(policy, ["/bin/cat"], { timeoutMs: 10_000, stdin: Readable.from([Buffer.from("a"), Buffer.from("b")]) });
      expect(fromStream.stdout.toString()).toBe("ab");
    });

    it("reports a stdin stream that errors as input-failure", async () => {
      const broken = new Readable({
        read() {
          this.push("partial");
          this.destroy(new Error("upstream read failed"));
        },
      });
      const r = await runSandboxed(policy, ["/bin/cat"], { timeoutMs: 10_000, stdin: broken });
      expect(r.state).toBe("input-failure");
      expect(r.exitCode).toBe(0);
    });

    it("reports input-failure when the command exits before taking all of its stdin (spec: incomplete stdin)", async () => {
      const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
      const unread = await runSandboxed(policy, ["/bin/true"], { timeoutMs: 10_000, stdin: big });
      expect(unread.state).toBe("input-failure");
      expect(unread.exitCode).toBe(0);
      expect(unread.ok).toBe(false);
      const streamed = await runSandboxed(policy, sh("head -c 10 >/dev/null"), { timeoutMs: 10_000, stdin: Readable.from([big, big]) });
      expect(streamed.state).toBe("input-failure");
      // Control: the same input read to the end is a clean exit.
      const read = await runSandboxed(policy, sh("wc -c"), { timeoutMs: 10_000, stdin: big });
      expect(read.state).toBe("exited");
      expect(read.stdout.toString().trim()).toBe(String(big.length));
    });

    it("flags stdout overflow instead of silently truncating, and keeps draining", async () => {
      const r = await runSandboxed(policy, sh("head -c 300000 /dev/zero; echo done >&2"), { timeoutMs: 10_000, maxStdoutBytes: 1000 });
      expect(r.state).toBe("exited");
      expect(r.stdoutOverflow).toBe(true);
      expect(r.stdout.length).toBe(1000);
      expect(r.stderrTail).toBe("done\n");
      const small = await runSandboxed(policy, sh("head -c 1000 /dev/zero"), { timeoutMs: 10_000, maxStdoutBytes: 1000 });
      expect(small.stdoutOverflow).toBe(false);
    });

    it("keeps only the stderr tail", async () => {
      const r = await runSandboxed(policy, sh("head -c 5000 /dev/zero | tr '\\0' a >&2; printf END >&2"), { timeoutMs: 10_000, stderrTailBytes: 100 });
      expect(r.stderrTail.length).toBe(100);
      expect(r.stderrTail.endsWith("aaaEND")).toBe(true);
    });

    it("an observer that throws is disabled, the run is unaffected", async () => {
      const seen: string[] = [];
      let calls = 0;
      const r = await runSandboxed(policy, sh("echo one; sleep 0.1; echo two"), {
        timeoutMs: 10_000,
        onStdout: (chunk) => {
          calls += 1;
          seen.push(chunk.toString());
          throw new Error("observer bug");
        },
      });
      expect(r.state).toBe("exited");
      expect(r.stdout.toString()).toBe("one\ntwo\n");
      expect(calls).toBe(1);
      expect(seen).toEqual(["one\n"]);
    });

    it("keeps a large env off bwrap's visible command line (it travels in the --args file)", async () => {
      const big = "x".repeat(100_000);
      const env: Record<string, string> = { ...TEST_ENV };
      for (let i = 0; i < 12; i += 1) env[`BIG_${i}`] = big;
      const marker = token();
      let bwrapCmdline: string[] = [];
      const r = await runSandboxed({ env }, sh(`printenv BIG_11 | wc -c; echo ${marker}; sleep 0.3`), {
        timeoutMs: 10_000,
        onStdout: () => {
          if (bwrapCmdline.length === 0)
            bwrapCmdline = hostCommandLines()
              .filter((p) => p.cmdline.startsWith("/usr/bin/bwrap") && p.cmdline.includes(marker))
              .map((p) => p.cmdline);
        },
      });
      expect(r.stdout.toString().split("\n")[0]).toBe("100001");
      expect(bwrapCmdline.length).toBeGreaterThan(0);
      for (const line of bwrapCmdline) expect(line.length).toBeLessThan(500);
    });
  });
});
