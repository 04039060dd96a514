import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { UNSAFE_NO_BWRAP, createHostUnsafeBackend, type HostUnsafeBackendOptions } from "../src/unsafe.js";
import { livePidsMatching, makeTempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function temp(prefix: string): string {
  const d = makeTempDir(prefix);
  cleanups.push(d.cleanup);
  return d.path;
}
const backend = () => createHostUnsafeBackend({ acknowledge: UNSAFE_NO_BWRAP, ci: undefined, applyMode: false });
const env = { PATH: "/opt/claude:/usr/bin:/bin", HOME: "/home/agent", CLAUDE_CODE_SHELL_PREFIX: "/opt/claude/shell-prefix", CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: "1" };

describe("createHostUnsafeBackend", () => {
  it.each<[HostUnsafeBackendOptions, RegExp]>([
    [{ acknowledge: UNSAFE_NO_BWRAP, ci: "true", applyMode: false }, /CI is set/],
    [{ acknowledge: UNSAFE_NO_BWRAP, ci: "1", applyMode: false }, /CI is set/],
    [{ acknowledge: UNSAFE_NO_BWRAP, ci: undefined, applyMode: true }, /apply mode/],
    [{ acknowledge: "yes" as typeof UNSAFE_NO_BWRAP, ci: undefined, applyMode: false }, /acknowledge/],
  ])("refuses to construct for %j", (options, message) => {
    expect(() => createHostUnsafeBackend(options)).toThrow(expect.objectContaining({ code: "SANDBOX_UNSAFE_REFUSED", message: expect.stringMatching(message) }));
  });

  it("is labelled as no security boundary", () => {
    expect(backend()).toMatchObject({ kind: "host-unsafe", isSecurityBoundary: false });
  });
});

describe("host-unsafe run", () => {
  it("rewrites sandbox paths in argv, env and cwd to host paths and drops sandbox-only env", async () => {
    const ws = temp("hu-ws");
    const out = temp("hu-out");
    writeFileSync(join(ws, "in.txt"), "data\n");
    const r = await backend().run(
      { workspace: { hostPath: ws, mode: "rw" }, env, mounts: [{ source: out, target: "/review-output", mode: "rw" }] },
      ["/bin/sh", "-c", 'pwd; echo "$HOME"; echo "$PATH"; env | grep -c CLAUDE_CODE || true; cp /workspace/in.txt /review-output/review-output.json'],
      { timeoutMs: 10_000 },
    );
    expect(r.state).toBe("exited");
    expect(r.backend).toBe("host-unsafe");
    const [cwd, home, path, claudeVars] = r.stdout.toString().trim().split("\n");
    expect(cwd).toBe(ws);
    expect(home).toMatch(/wfbench-host-unsafe-.*\/home$/);
    expect(path).toBe("/usr/bin:/bin");
    expect(claudeVars).toBe("0");
    expect(readFileSync(join(out, "review-output.json"), "utf8")).toBe("data\n");
  });

  it("rewrites sandbox paths in a text prompt on stdin, only at path boundaries", async () => {
    const ws = temp("hu-stdin");
    const out = temp("hu-stdin-out");
    const r = await backend().run(
      { workspace: { hostPath: ws, mode: "rw" }, env, mounts: [{ source: out, target: "/review-output", mode: "rw" }] },
      ["/bin/cat"],
      { timeoutMs: 10_000, stdin: "write to /review-output/review-output.json; read /workspace/src; keep /workspaces and /review-outputs" },
    );
    expect(r.stdout.toString()).toBe(`write to ${out}/review-output.json; read ${ws}/src; keep /workspaces and /review-outputs`);
  });

  it("emulates a read-only workspace by removing write bits during the run and restores them after", async () => {
    const ws = temp("hu-ro");
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src/a.ts"), "x", { mode: 0o644 });
    const r = await backend().run({ workspace: { hostPath: ws, mode: "ro" }, env }, ["/bin/sh", "-c", "stat -c %a /workspace/src /workspace/src/a.ts"], { timeoutMs: 10_000 });
    expect(r.stdout.toString()).toBe("500\n444\n");
    expect(statSync(join(ws, "src")).mode & 0o777).toBe(0o755);
    expect(statSync(join(ws, "src/a.ts")).mode & 0o777).toBe(0o644);
  });

  it("refuses out-of-range run options like the bwrap backend", async () => {
    await expect(backend().run({ env }, ["/bin/true"], { timeoutMs: 2 ** 31 })).rejects.toMatchObject({ code: "SANDBOX_OPTIONS_INVALID" });
  });

  it("propagates exit codes and 128+signal", async () => {
    expect((await backend().run({ env }, ["/bin/sh", "-c", "exit 9"], { timeoutMs: 10_000 })).exitCode).toBe(9);
    const killed = await backend().run({ env }, ["/bin/sh", "-c", "kill -TERM $$"], { timeoutMs: 10_000 });
    expect(killed.exitCode).toBe(143);
    expect(killed.signal).toBe("SIGTERM");
  });

  it("kills the process group on timeout and reports spawn failures", async () => {
    const marker = `779.${Date.now() % 1_000_000}7`;
    const r = await backend().run({ env }, ["/bin/sh", "-c", `trap '' TERM; /bin/sleep ${marker} & echo ready; wait`], { timeoutMs: 500, graceMs: 300 });
    expect(r.state).toBe("forced-kill");
    let left = livePidsMatching(marker);
    for (let i = 0; i < 40 && left.length > 0; i += 1) {
      await sleep(25);
      left = livePidsMatching(marker);
    }
    expect(left).toEqual([]);
    const missing = await backend().run({ env }, ["/nonexistent/tool"], { timeoutMs: 10_000 });
    expect(missing.state).toBe("spawn-failure");
  });

  it("removes its scratch home even when the command left 0555 directories in it", async () => {
    const r = await backend().run({ env }, ["/bin/sh", "-c", 'mkdir -p "$HOME/x/y" && chmod 555 "$HOME/x/y" "$HOME/x" && echo "$HOME"'], { timeoutMs: 10_000 });
    const home = r.stdout.toString().trim();
    expect(home).toMatch(/wfbench-host-unsafe-/);
    expect(() => statSync(home)).toThrow(/ENOENT/);
  });
});
