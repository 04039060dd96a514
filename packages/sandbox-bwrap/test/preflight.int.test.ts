import { statSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxPreflightError } from "../src/errors.js";
import { classifyBwrapFailure, preflight } from "../src/preflight.js";
import { runSandboxed } from "../src/run-sandboxed.js";
import { TEST_ENV, makeTempDir, skipBwrap } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function preflightError(options: Parameters<typeof preflight>[0]): Promise<SandboxPreflightError> {
  try {
    await preflight(options);
  } catch (error) {
    if (error instanceof SandboxPreflightError) return error;
    throw error;
  }
  throw new Error("preflight unexpectedly succeeded");
}

describe.skipIf(skipBwrap)("preflight (real bwrap)", () => {
  it("runs the policy's argv with /bin/true and reports version, setuid bit and sysctls", async () => {
    const report = await preflight({ policy: { env: TEST_ENV } });
    expect(report.bwrapVersion).toMatch(/^bubblewrap \d+\.\d+\.\d+/);
    expect(report.bwrapSetuid).toBe((statSync("/usr/bin/bwrap").mode & 0o4000) !== 0);
    expect(Object.keys(report.sysctls)).toContain("/proc/sys/user/max_user_namespaces");
    expect(report.sysctls["/proc/sys/user/max_user_namespaces"]).toMatch(/^\d+$/);
    expect(await preflight({ policy: { env: TEST_ENV } })).toBe(report);
  });

  it("throws SANDBOX_BWRAP_NOT_FOUND naming the install fix when bwrap is missing", async () => {
    const error = await preflightError({ bwrapPath: "/nonexistent/bwrap" });
    expect(error.code).toBe("SANDBOX_BWRAP_NOT_FOUND");
    expect(error.message).toMatch(/apt-get install -y bubblewrap/);
  });

  it("throws SANDBOX_MOUNT_SOURCE_MISSING for a policy whose mount source is absent", async () => {
    const error = await preflightError({ policy: { mounts: [{ source: "/nonexistent/src", target: "/opt/x", mode: "ro" }] } });
    expect(error.code).toBe("SANDBOX_MOUNT_SOURCE_MISSING");
  });

  it("classifies bwrap's own failure when a mount point cannot be created inside a read-only workspace", async () => {
    const ws = makeTempDir("pf-ws");
    const src = makeTempDir("pf-src");
    cleanups.push(ws.cleanup, src.cleanup);
    const error = await preflightError({
      policy: { workspace: { hostPath: ws.path, mode: "ro" }, mounts: [{ source: src.path, target: "/workspace/not-there", mode: "ro" }] },
    });
    expect(error.code).toBe("SANDBOX_MOUNT_SOURCE_MISSING");
    expect(error.stderrTail).toMatch(/^bwrap: /);
    // Control: with the mount point present the same policy passes.
    mkdirSync(join(ws.path, "not-there"));
    await expect(
      preflight({ policy: { workspace: { hostPath: ws.path, mode: "ro" }, mounts: [{ source: src.path, target: "/workspace/not-there", mode: "ro" }] } }),
    ).resolves.toHaveProperty("bwrapVersion");
  });

  it("classifies a real nested-namespace refusal (bwrap inside the sandbox) as SANDBOX_USERNS_DISABLED", async () => {
    const r = await runSandboxed({ env: TEST_ENV }, ["/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--proc", "/proc", "/usr/bin/true"], { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(1);
    expect(classifyBwrapFailure(r.stderrTail).code).toBe("SANDBOX_USERNS_DISABLED");
  });
});
