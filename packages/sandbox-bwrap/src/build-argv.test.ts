import { describe, expect, it } from "vitest";
import { BWRAP_FDS, buildBwrapArgv, buildBwrapCommandLine, encodeArgsFile, resolveSandboxCwd, parseSandboxPolicy } from "./build-argv.js";
import { SandboxError } from "./errors.js";
import { SANDBOX_GATEWAY_SOCKET, type SandboxPolicyInput } from "./schema.js";

/** Splits an argv into [option, ...values] groups by bwrap's arities, so assertions see pairs, not positions. */
const ARITY: Record<string, number> = {
  "--uid": 1, "--gid": 1, "--cap-drop": 1, "--hostname": 1, "--ro-bind": 2, "--ro-bind-try": 2, "--bind": 2,
  "--symlink": 2, "--proc": 1, "--dev": 1, "--tmpfs": 1, "--dir": 1, "--setenv": 2, "--chdir": 1, "--seccomp": 1,
  "--json-status-fd": 1, "--remount-ro": 1,
};
function groups(argv: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < argv.length; ) {
    const opt = argv[i] ?? "";
    const n = ARITY[opt] ?? 0;
    out.push(argv.slice(i, i + 1 + n));
    i += 1 + n;
  }
  return out;
}
function indexOfGroup(argv: string[], ...group: string[]): number {
  return groups(argv).findIndex((g) => g.length === group.length && g.every((v, i) => v === group[i]));
}

const base: SandboxPolicyInput = {};

describe("buildBwrapArgv", () => {
  describe("with the default policy", () => {
    const argv = buildBwrapArgv(base);
    it("never binds the host root and allow-lists /usr read-only", () => {
      expect(indexOfGroup(argv, "--ro-bind", "/", "/")).toBe(-1);
      expect(indexOfGroup(argv, "--bind", "/", "/")).toBe(-1);
      expect(indexOfGroup(argv, "--ro-bind", "/usr", "/usr")).toBeGreaterThan(-1);
      for (const dir of ["bin", "lib", "lib64", "sbin"]) expect(indexOfGroup(argv, "--symlink", `usr/${dir}`, `/${dir}`)).toBeGreaterThan(-1);
    });
    it("unshares everything, maps to uid/gid 1000, disables nested userns and drops all caps", () => {
      for (const flag of ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--clearenv"])
        expect(argv).toContain(flag);
      expect(indexOfGroup(argv, "--uid", "1000")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--gid", "1000")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--cap-drop", "ALL")).toBeGreaterThan(-1);
      expect(argv).not.toContain("--share-net");
    });
    it("makes the command pid 1 itself, so no bwrap init (dumpable, holding stdio and --args) lives in the namespace", () => {
      expect(argv).toContain("--as-pid-1");
    });
    it("gives private tmpfs /tmp, /run and home, a fresh /proc and /dev, and no /sys", () => {
      expect(indexOfGroup(argv, "--tmpfs", "/tmp")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--tmpfs", "/run")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--tmpfs", "/home")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--dir", "/home/agent")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--proc", "/proc")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--dev", "/dev")).toBeGreaterThan(-1);
      expect(argv.some((a) => a.startsWith("/sys"))).toBe(false);
    });
    it("binds /proc/sys (and sysrq-trigger when present) read-only over the fresh /proc", () => {
      const proc = indexOfGroup(argv, "--proc", "/proc");
      expect(indexOfGroup(argv, "--ro-bind", "/proc/sys", "/proc/sys")).toBe(proc + 1);
      expect(indexOfGroup(argv, "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger")).toBe(proc + 2);
    });
    it("freezes the scratch root after mounting and ends with the seccomp and status fds", () => {
      expect(indexOfGroup(argv, "--remount-ro", "/")).toBeGreaterThan(indexOfGroup(argv, "--dir", "/home/agent"));
      expect(argv.slice(-4)).toEqual(["--seccomp", String(BWRAP_FDS.seccomp), "--json-status-fd", String(BWRAP_FDS.status)]);
    });
    it("defaults cwd to the home directory when there is no workspace", () => {
      expect(indexOfGroup(argv, "--chdir", "/home/agent")).toBeGreaterThan(-1);
    });
  });

  describe("with a workspace, mounts, env and a gateway socket", () => {
    const policy: SandboxPolicyInput = {
      workspace: { hostPath: "/srv/clone", mode: "ro", readOnlySubpaths: [".claude/skills/review"] },
      homeHostPath: "/srv/private/home",
      tmpHostPath: "/srv/private/tmp",
      mounts: [
        { source: "/opt/pkgs/claude", target: "/opt/claude/claude", mode: "ro" },
        { source: "/srv/private/review-output", target: "/review-output", mode: "rw" },
      ],
      tmpfs: ["/workspace/node_modules/.vite-temp"],
      env: { ZED: "last", ANTHROPIC_API_KEY: "tok-123", HOME: "/home/agent" },
      network: { mode: "gateway-socket", hostSocketPath: "/srv/private/gw.sock" },
    };
    const argv = buildBwrapArgv(policy);
    it("binds the workspace read-only and re-binds read-only subpaths after it", () => {
      const ws = indexOfGroup(argv, "--ro-bind", "/srv/clone", "/workspace");
      const sub = indexOfGroup(argv, "--ro-bind", "/srv/clone/.claude/skills/review", "/workspace/.claude/skills/review");
      expect(ws).toBeGreaterThan(-1);
      expect(sub).toBeGreaterThan(ws);
      expect(indexOfGroup(argv, "--chdir", "/workspace")).toBeGreaterThan(-1);
    });
    it("in a writable workspace, self-binds the parents of read-only subpaths (not the workspace root) before them", () => {
      const rw = buildBwrapArgv({
        ...policy,
        workspace: { hostPath: "/srv/clone", mode: "rw", readOnlySubpaths: [".claude/skills/review", ".claude/skills/review/deep/x", "docs/a"] },
      });
      const binds = groups(rw).filter((g) => (g[0] === "--bind" || g[0] === "--ro-bind") && (g[2] ?? "").startsWith("/workspace"));
      expect(binds).toEqual([
        ["--bind", "/srv/clone", "/workspace"],
        ["--bind", "/srv/clone/.claude", "/workspace/.claude"],
        ["--bind", "/srv/clone/docs", "/workspace/docs"],
        ["--bind", "/srv/clone/.claude/skills", "/workspace/.claude/skills"],
        ["--ro-bind", "/srv/clone/.claude/skills/review", "/workspace/.claude/skills/review"],
        ["--ro-bind", "/srv/clone/.claude/skills/review/deep/x", "/workspace/.claude/skills/review/deep/x"],
        ["--ro-bind", "/srv/clone/docs/a", "/workspace/docs/a"],
      ]);
    });
    it("binds a writable workspace with --bind", () => {
      const rw = buildBwrapArgv({ ...policy, workspace: { hostPath: "/srv/clone", mode: "rw" } });
      expect(indexOfGroup(rw, "--bind", "/srv/clone", "/workspace")).toBeGreaterThan(-1);
      expect(indexOfGroup(rw, "--ro-bind", "/srv/clone", "/workspace")).toBe(-1);
    });
    it("emits extra mounts in order with their modes, then tmpfs overlays, then the gateway socket", () => {
      const claude = indexOfGroup(argv, "--ro-bind", "/opt/pkgs/claude", "/opt/claude/claude");
      const review = indexOfGroup(argv, "--bind", "/srv/private/review-output", "/review-output");
      const vite = indexOfGroup(argv, "--tmpfs", "/workspace/node_modules/.vite-temp");
      const gw = indexOfGroup(argv, "--ro-bind", "/srv/private/gw.sock", SANDBOX_GATEWAY_SOCKET);
      expect([claude, review, vite, gw].every((i) => i > -1)).toBe(true);
      expect(claude).toBeLessThan(review);
      expect(review).toBeLessThan(vite);
      expect(vite).toBeLessThan(gw);
      expect(indexOfGroup(argv, "--bind", "/srv/private/home", "/home/agent")).toBeGreaterThan(-1);
      expect(indexOfGroup(argv, "--bind", "/srv/private/tmp", "/tmp")).toBeGreaterThan(-1);
    });
    it("sets exactly the allow-listed env, sorted, after --clearenv", () => {
      const clear = argv.indexOf("--clearenv");
      const sets = groups(argv).filter((g) => g[0] === "--setenv");
      expect(sets).toEqual([
        ["--setenv", "ANTHROPIC_API_KEY", "tok-123"],
        ["--setenv", "HOME", "/home/agent"],
        ["--setenv", "ZED", "last"],
      ]);
      expect(argv.indexOf("--setenv")).toBeGreaterThan(clear);
    });
    it("is deterministic for the same policy", () => {
      expect(buildBwrapArgv(policy)).toEqual(argv);
    });
  });

  describe("on a host without merged /usr", () => {
    it("read-only binds the top-level system dirs instead of symlinking them", () => {
      const argv = buildBwrapArgv(base, { mergedUsr: false });
      expect(indexOfGroup(argv, "--ro-bind-try", "/bin", "/bin")).toBeGreaterThan(-1);
      expect(argv).not.toContain("--symlink");
    });
  });

  describe("with an invalid policy", () => {
    it.each<[string, SandboxPolicyInput]>([
      ["relative mount source", { mounts: [{ source: "rel/x", target: "/x", mode: "ro" }] }],
      ["'..' in a target", { mounts: [{ source: "/a", target: "/opt/../etc", mode: "ro" }] }],
      ["host root as source", { mounts: [{ source: "/", target: "/host", mode: "ro" }] }],
      ["/proc as source", { mounts: [{ source: "/proc/1", target: "/p", mode: "ro" }] }],
      ["a target under /usr", { mounts: [{ source: "/a", target: "/usr/local/x", mode: "ro" }] }],
      ["the gateway path as a mount target", { mounts: [{ source: "/a", target: "/run/gateway.sock", mode: "ro" }] }],
      ["duplicate targets", { mounts: [{ source: "/a", target: "/x", mode: "ro" }, { source: "/b", target: "/x", mode: "rw" }] }],
      ["a non-normalised path", { mounts: [{ source: "/a//b", target: "/x", mode: "ro" }] }],
      ["a bad env name", { env: { "BAD-NAME": "x" } }],
      ["NUL in an env value", { env: { OK: "a\0b" } }],
      ["'..' in a read-only subpath", { workspace: { hostPath: "/w", mode: "rw", readOnlySubpaths: ["../etc"] } }],
      ["an unknown key", { extra: true } as unknown as SandboxPolicyInput],
    ])("throws SandboxError(SANDBOX_POLICY_INVALID) for %s", (_name, policy) => {
      expect(() => buildBwrapArgv(policy)).toThrow(SandboxError);
      try {
        buildBwrapArgv(policy);
      } catch (error) {
        expect((error as SandboxError).code).toBe("SANDBOX_POLICY_INVALID");
      }
    });
  });
});

describe("resolveSandboxCwd", () => {
  it("prefers an explicit cwd", () => {
    expect(resolveSandboxCwd(parseSandboxPolicy({ cwd: "/opt/x" }))).toBe("/opt/x");
    expect(resolveSandboxCwd(parseSandboxPolicy({ workspace: { hostPath: "/w", mode: "rw" } }))).toBe("/workspace");
  });
});

describe("buildBwrapCommandLine", () => {
  it("shows only the args fd and the command", () => {
    expect(buildBwrapCommandLine(["/bin/sh", "-c", "echo hi"])).toEqual(["--args", "3", "--", "/bin/sh", "-c", "echo hi"]);
  });
  it.each([[[]], [[""]], [["/bin/echo", "a\0b"]]])("throws SANDBOX_ARGV_INVALID for %j", (argv) => {
    expect(() => buildBwrapCommandLine(argv)).toThrow(expect.objectContaining({ code: "SANDBOX_ARGV_INVALID" }));
  });
});

describe("encodeArgsFile", () => {
  it("NUL-terminates every option so values may contain spaces, quotes and newlines", () => {
    const options = ["--setenv", "K", "a b\n'c\""];
    const bytes = encodeArgsFile(options);
    expect(bytes.toString("utf8").split("\0").slice(0, -1)).toEqual(options);
    expect(bytes.at(-1)).toBe(0);
  });
});
