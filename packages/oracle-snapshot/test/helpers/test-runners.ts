import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import type { OracleCommandRunner, OracleRunRequest } from "../../src/oracle-command-runner.js";

/** What the test runners really saw: kept so a test can prove the output existed and was dropped. */
export interface RawRunReport {
  state: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export const hasBwrap = existsSync("/usr/bin/bwrap");
export const hasUnshare = existsSync("/usr/bin/unshare") && process.getuid?.() === 0;
export const requireTools = process.env["CI"] === "true";

const HOST_PATH = "/usr/local/bin:/usr/bin:/bin";

function spawnAndWait(argv: string[], env: Record<string, string>, timeoutMs: number): Promise<RawRunReport> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    const child = spawn(file ?? "/bin/false", args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.on("error", () => {
      clearTimeout(timer);
      resolve({ state: "spawn-failure", exitCode: null, stdout, stderr });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ state: timedOut ? "timeout" : "exited", exitCode: timedOut ? null : code, stdout, stderr });
    });
  });
}

/**
 * A test-only bwrap runner with the isolation the product's sandbox gives an oracle: workspace read-only, the stage
 * bound read-only at the mountpoint, the private root hidden behind a tmpfs, no network, a clean env. It leaks
 * stdout/stderr in its report on purpose, so tests can prove runHiddenOracle drops them.
 */
export function createBwrapTestRunner(): OracleCommandRunner & { readonly raw: RawRunReport[] } {
  const raw: RawRunReport[] = [];
  return {
    raw,
    workspaceView: null,
    async run(request: OracleRunRequest) {
      const env = Object.entries({ PATH: HOST_PATH, HOME: "/tmp", NO_COLOR: "1", ...request.env }).flatMap(([key, value]) => [
        "--setenv",
        key,
        value,
      ]);
      const argv = [
        "/usr/bin/bwrap",
        "--die-with-parent",
        "--unshare-net",
        "--unshare-pid",
        "--dev-bind", "/", "/",
        "--ro-bind", request.workspace.hostPath, request.workspace.hostPath,
        "--ro-bind", request.mount.source, request.mount.hostTarget,
        "--tmpfs", dirname(request.mount.source),
        "--chdir", request.workspace.hostPath,
        "--clearenv",
        ...env,
        "--",
        ...request.argv,
      ];
      const report = await spawnAndWait(argv, {}, request.timeoutMs);
      raw.push(report);
      return report;
    },
  };
}

/**
 * A deliberately broken "sandbox": a private mount namespace that binds the stage WRITABLE at the mountpoint and
 * leaves the workspace writable, standing in for a sandbox bug. Used only to prove re-verification catches it.
 */
export function createLeakyMountRunner(): OracleCommandRunner & { readonly raw: RawRunReport[] } {
  const raw: RawRunReport[] = [];
  return {
    raw,
    workspaceView: null,
    async run(request: OracleRunRequest) {
      const script = 'mount --bind "$1" "$2" || exit 97; cd "$3" || exit 98; exec /bin/sh -c "$4"';
      const argv = [
        "/usr/bin/unshare", "--mount", "--propagation", "private", "--",
        "/bin/sh", "-c", script, "sh",
        request.mount.source, request.mount.hostTarget, request.workspace.hostPath, request.argv[2],
      ];
      const report = await spawnAndWait(argv, { PATH: HOST_PATH, ...request.env }, request.timeoutMs);
      raw.push(report);
      return report;
    },
  };
}
