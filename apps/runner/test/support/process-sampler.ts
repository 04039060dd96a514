// Host-side evidence for "the key never reaches a child": while a runner runs, every process whose parent chain leads
// to it (bwrap and everything inside the sandbox included; pid namespaces do not hide them from the host's /proc) is
// read from /proc repeatedly. Only the kernel's view counts here; nothing the agent or the runner reports is used.
import { readdirSync, readFileSync } from "node:fs";

/** One observation of one descendant: what the kernel reports for its argv and its initial environment. */
export interface ProcessObservation {
  readonly pid: number;
  /** /proc/<pid>/comm: the executable's short name (e.g. `claude`, `bwrap`). */
  readonly comm: string;
  readonly argv: readonly string[];
  /** null when the process exited (or refused the read) between listing and reading. */
  readonly env: ReadonlyMap<string, string> | null;
  /** The raw cmdline and environ bytes, so a secret is searched in exactly what the kernel holds. */
  readonly raw: Buffer;
}

/** A running sampler; stop() ends it and returns every distinct observation (by pid, comm and argv). */
export interface DescendantSampler {
  stop(): { observations: ProcessObservation[]; scans: number; rootArgv: string[] };
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  const stat = readOrNull(`/proc/${pid}/stat`)?.toString("utf8");
  if (stat === undefined) return null;
  // comm may hold spaces or parentheses: the fields after the last ")" are fixed ("state ppid ...").
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/u.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== null) parents.set(Number(name), ppid);
  }
  return [...parents.keys()].filter((pid) => {
    for (let at = parents.get(pid), hops = 0; at !== undefined && hops < 64; at = parents.get(at), hops++) if (at === root) return true;
    return false;
  });
}

function nulSplit(buffer: Buffer): string[] {
  return buffer.toString("utf8").split("\0").filter((part) => part !== "");
}

/** Samples the descendants of `rootPid` (not the root itself) every `intervalMs`; trusts only /proc, reads nothing else. */
export function sampleDescendants(rootPid: number, intervalMs = 100): DescendantSampler {
  const seen = new Map<string, ProcessObservation>();
  let scans = 0;
  const rootArgv = nulSplit(readOrNull(`/proc/${rootPid}/cmdline`) ?? Buffer.alloc(0));
  const scan = (): void => {
    scans++;
    for (const pid of descendantsOf(rootPid)) {
      const cmdline = readOrNull(`/proc/${pid}/cmdline`);
      const comm = readOrNull(`/proc/${pid}/comm`)?.toString("utf8").trim();
      if (cmdline === null || comm === undefined) continue;
      const argv = nulSplit(cmdline);
      const key = `${pid}\0${comm}\0${argv.join("\0")}`;
      if (seen.has(key)) continue;
      const environ = readOrNull(`/proc/${pid}/environ`);
      const env = environ === null ? null : new Map(nulSplit(environ).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] as const));
      seen.set(key, { pid, comm, argv, env, raw: Buffer.concat([cmdline, environ ?? Buffer.alloc(0)]) });
    }
  };
  const timer = setInterval(scan, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return { observations: [...seen.values()], scans, rootArgv };
    },
  };
}

/** What a finished sampling says about one secret; the verdict stays with the test. */
export interface SecretExposure {
  /** Descendants whose argv or initial environment contain the secret, described as `pid comm: argv…`. */
  readonly holders: string[];
  readonly bwrapSeen: boolean;
  /** Every `claude` session process (not the `--version` probe) whose environment was read, with its credential-named variables. */
  readonly sessions: { readonly describe: string; readonly credentials: [string, string][] }[];
  /** Every descendant seen, described, for assertion messages. */
  readonly seen: string[];
}

const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|AUTH|CREDENTIAL/iu;

/**
 * Summarises a sampling for one secret. A forked child still shows the runner's own image until it execs (same argv):
 * such observations are the runner, not a child, and are not counted as holders. Trusts only the observations.
 */
export function findSecretExposure(sampled: { observations: readonly ProcessObservation[]; rootArgv: readonly string[] }, secret: string): SecretExposure {
  const describe = (o: ProcessObservation): string => `pid ${String(o.pid)} ${o.comm}: ${o.argv.slice(0, 6).join(" ")}`;
  const runnerArgv = sampled.rootArgv.join("\0");
  const children = sampled.observations.filter((o) => o.argv.join("\0") !== runnerArgv);
  return {
    holders: children.filter((o) => o.raw.includes(secret)).map(describe),
    bwrapSeen: children.some((o) => o.comm === "bwrap"),
    sessions: children
      // The harness's own `claude --version` probe (runtime digest, CLI proof) is not a session: it runs with no
      // credential at all, and `holders` above still checks it for the secret.
      .filter((o) => o.comm === "claude" && o.env !== null && !(o.argv.length === 2 && o.argv[1] === "--version"))
      .map((o) => ({ describe: describe(o), credentials: [...(o.env ?? new Map<string, string>()).entries()].filter(([name]) => CREDENTIAL_NAME.test(name)) })),
    seen: children.map(describe),
  };
}
