// Who the sandbox user is on the host. As root, bwrap maps the sandbox's uid 1000 to its own uid: host uid 0, so the
// mount list and seccomp are the only wall (a writable host file owned by root is the sandbox's to change). With
// `hostIdentity` bwrap runs as an unprivileged uid and the sandbox user is that uid on the host. These tests read the
// answer from the host side (/proc/<pid>/status and uid_map of the running command, owners of files it created),
// show what an unprepared layout breaks, and run the real Claude Code CLI on a layout prepared for the identity.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { resolveClaudeCli } from "@wfbench/claude-cli";
import { parseScript, startScriptedModel, type ScriptedModelServer } from "@wfbench/scripted-model";
import { SANDBOX_GATEWAY_SOCKET, preflight, runSandboxed, type HostIdentity, type SandboxPolicyInput } from "../src/index.js";
import { TEST_ENV, livePidsMatching, makeTempDir, skipBwrap } from "./helpers.js";

const isRoot = process.getuid?.() === 0;
// Only a root caller can start bwrap as another uid; for anyone else the sandbox user already is their own uid.
if (!isRoot && !skipBwrap) process.stderr.write("host-identity.int.test.ts: not root, skipping (hostIdentity applies to root callers only)\n");
const IDENTITY: HostIdentity = { uid: 60_999, gid: 60_999 };
const CLAUDE_FIXTURE = fileURLToPath(new URL("./fixtures/claude-session", import.meta.url));

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A temp dir whose own mode lets other uids pass through it (mkdtemp makes it 0700). */
function searchableTemp(prefix: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(dir.cleanup);
  chmodSync(dir.path, 0o711);
  return dir.path;
}

function chownTree(path: string, identity: HostIdentity): void {
  chownSync(path, identity.uid, identity.gid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), identity);
}

interface HostView {
  inside: string;
  hostUid: string | null;
  hostUidMap: string | null;
  psUid: string | null;
  fileOwner: number;
}

/** Runs a command that records its own uid_map, creates a file in the workspace and sleeps; samples it from the host. */
async function observe(identity: HostIdentity | undefined): Promise<HostView> {
  const root = searchableTemp("identity");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  if (identity !== undefined) chownSync(workspace, identity.uid, identity.gid);
  const marker = `2.${Date.now() % 1_000_000}7`;
  let hostUid: string | null = null;
  let hostUidMap: string | null = null;
  let psUid: string | null = null;
  const sampler = setTimeout(() => {
    // The outer bwrap's command line holds the marker too; the command itself is the process named sleep.
    const pid = livePidsMatching(`sleep ${marker}`).find((candidate) => readFileSync(`/proc/${candidate}/comm`, "utf8").trim() === "sleep");
    if (pid === undefined) return;
    hostUid = /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]?.trim() ?? null;
    hostUidMap = readFileSync(`/proc/${pid}/uid_map`, "utf8").trim().split(/\s+/u).join(" ");
    psUid = execFileSync("ps", ["-o", "uid=", "-p", String(pid)], { encoding: "utf8" }).trim();
  }, 800);
  const policy: SandboxPolicyInput = { env: TEST_ENV, workspace: { hostPath: workspace, mode: "rw" } };
  const result = await runSandboxed(policy, ["/bin/sh", "-c", `tr -s ' ' < /proc/self/uid_map; touch /workspace/made-inside; exec /bin/sleep ${marker}`], {
    timeoutMs: 20_000,
    ...(identity === undefined ? {} : { hostIdentity: identity }),
  });
  clearTimeout(sampler);
  expect(result.state, result.stderrTail).toBe("exited");
  return { inside: result.stdout.toString().trim(), hostUid, hostUidMap, psUid, fileOwner: statSync(join(workspace, "made-inside")).uid };
}

describe.skipIf(skipBwrap || !isRoot)("the sandbox user's host identity when the caller is root (real bwrap)", () => {
  it("without hostIdentity the sandbox user is host uid 0 (the hole this option closes)", async () => {
    const view = await observe(undefined);
    expect(view.hostUid).toBe("0\t0\t0\t0");
    expect(view.hostUidMap).toBe("1000 0 1");
    expect(view.psUid).toBe("0");
    expect(view.fileOwner).toBe(0);
  });

  it("with hostIdentity the command, its uid_map seen from the host, and what it writes all belong to that uid", async () => {
    const view = await observe(IDENTITY);
    const uid = String(IDENTITY.uid);
    expect(view.hostUid).toBe(`${uid}\t${uid}\t${uid}\t${uid}`);
    expect(view.hostUidMap).toBe(`1000 ${uid} 1`);
    expect(view.psUid).toBe(uid);
    expect(view.fileOwner).toBe(IDENTITY.uid);
    // Inside, /proc/self/uid_map is relative to bwrap's intermediate namespace (two-step setup for --disable-userns),
    // so it reads `1000 0 1` either way: only the host side can tell the identities apart.
    expect(view.inside).toBe("1000 0 1");
  });

  it("preflight runs the policy as the identity (bwrap then needs unprivileged user namespaces)", async () => {
    const report = await preflight({ hostIdentity: IDENTITY });
    expect(report.bwrapVersion).toMatch(/bubblewrap/u);
  });

  it("the limit and the pid-1 layout are unchanged under the identity", async () => {
    const r = await runSandboxed({ env: TEST_ENV }, ["/bin/sh", "-c", 'echo "$(id -u) $$ $(ulimit -Hn) $(grep CapEff /proc/self/status | tr -d "\\t")"'], { timeoutMs: 10_000, hostIdentity: IDENTITY });
    expect(r.stdout.toString()).toBe("1000 1 1024 CapEff:0000000000000000\n");
  });

  it("what an unprepared layout breaks: a source under a 0700 root dir cannot be mounted, a root-owned workspace is read-only", async () => {
    const locked = makeTempDir("locked");
    cleanups.push(locked.cleanup);
    const hidden = join(locked.path, "ws");
    mkdirSync(hidden);
    const unreachable = await runSandboxed({ env: TEST_ENV, workspace: { hostPath: hidden, mode: "rw" } }, ["/bin/true"], { timeoutMs: 10_000, hostIdentity: IDENTITY });
    expect(unreachable.state).toBe("sandbox-setup-failure");
    expect(unreachable.stderrTail).toMatch(/Can't find source path .*: Permission denied/u);

    const rootOwned = join(searchableTemp("rootowned"), "ws");
    mkdirSync(rootOwned);
    writeFileSync(join(rootOwned, "file"), "host\n");
    const denied = await runSandboxed({ env: TEST_ENV, workspace: { hostPath: rootOwned, mode: "rw" } }, ["/bin/sh", "-c", "echo x >> /workspace/file || echo denied; stat -c %u /workspace/file"], { timeoutMs: 10_000, hostIdentity: IDENTITY });
    // Root's files show as the overflow uid inside and keep their owner's DAC bits: no capability overrides them.
    expect(denied.stdout.toString()).toContain("denied\n65534\n");
    expect(readFileSync(join(rootOwned, "file"), "utf8")).toBe("host\n");
  });

  it("refuses root (0) or a non-integer as the identity before starting anything", async () => {
    for (const identity of [{ uid: 0, gid: 60_999 }, { uid: 60_999, gid: 0 }, { uid: 1.5, gid: 60_999 }]) {
      const r = await runSandboxed({ env: TEST_ENV }, ["/bin/true"], { timeoutMs: 10_000, hostIdentity: identity });
      expect(r.state).toBe("sandbox-setup-failure");
      expect(r.setupError).toMatch(/not an unprivileged uid\/gid/u);
    }
  });

  it("on a layout prepared for the identity, the real CLI completes Skill -> Bash through the gateway socket", async () => {
    const cli = await resolveClaudeCli();
    // What a composition must do: searchable ancestors, identity-owned writable trees, a socket the identity may
    // connect to. The CLI binary stays root's (0755, or 0111 execute-only: both executable by another uid).
    const root = searchableTemp("claude-identity");
    const workspace = join(root, "repo");
    const home = join(root, "home");
    const gatewayDir = join(root, "gateway");
    cpSync(join(CLAUDE_FIXTURE, "repo"), workspace, { recursive: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(gatewayDir, { mode: 0o711 });
    execFileSync("/usr/bin/git", ["init", "-q", "."], { cwd: workspace, env: {} });
    chownTree(workspace, IDENTITY);
    chownTree(home, IDENTITY);
    const parsed = parseScript(readFileSync(join(CLAUDE_FIXTURE, "script.yaml"), "utf8"), "script.yaml");
    if (!parsed.ok) throw new Error(`fixture script refused: ${JSON.stringify(parsed.error)}`);
    const socketPath = join(gatewayDir, "model.sock");
    const server: ScriptedModelServer = await startScriptedModel({ script: parsed.value, listen: { socketPath } });
    cleanups.push(() => server.close());
    // connect() needs write permission on the socket inode, which root's umask leaves to root alone.
    chmodSync(socketPath, 0o666);

    const result = await runSandboxed(
      {
        workspace: { hostPath: workspace, mode: "rw", readOnlySubpaths: [".claude/skills/sandbox-probe"] },
        homeHostPath: home,
        mounts: [{ source: cli.path, target: "/opt/claude/claude", mode: "ro" }],
        network: { mode: "gateway-socket", hostSocketPath: socketPath },
        env: {
          HOME: "/home/agent",
          PATH: "/opt/claude:/usr/bin:/bin",
          TMPDIR: "/tmp",
          LANG: "C.UTF-8",
          CLAUDE_CONFIG_DIR: "/home/agent/.claude",
          ANTHROPIC_API_KEY: "sk-ant-dummy-identity-0000",
          ANTHROPIC_BASE_URL: server.baseUrl,
          ANTHROPIC_UNIX_SOCKET: SANDBOX_GATEWAY_SOCKET,
          CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          CLAUDE_CODE_MAX_RETRIES: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
        },
      },
      [
        "/opt/claude/claude", "-p", "Use the sandbox-probe skill. WFBENCH-SANDBOX-PROBE-5c1e",
        "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5",
        "--setting-sources", "project", "--tools", "Bash,Read,Edit,Write,Glob,Grep,Skill",
        "--permission-mode", "bypassPermissions", "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}',
        "--max-turns", "6", "--no-session-persistence",
      ],
      { timeoutMs: 45_000, graceMs: 2_000, hostIdentity: IDENTITY },
    );
    const context = `state ${result.state} exit ${String(result.exitCode)}\nstderr: ${result.stderrTail.slice(-2000)}\nstdout: ${result.stdout.toString().slice(-2000)}`;
    expect(result.state, context).toBe("exited");
    expect(result.exitCode, context).toBe(0);
    expect(server.requests.length).toBe(3);
    // Uid 1000 inside (so bypassPermissions is allowed), the identity on the host.
    expect(readFileSync(join(workspace, "probe.txt"), "utf8").split("\n")[0]).toBe("1000");
    expect(statSync(join(workspace, "probe.txt")).uid).toBe(IDENTITY.uid);
  });
});
