import { buildBwrapArgv } from "./build-argv.js";
import { compileSeccompFilter } from "./compile-seccomp.js";
import type { SandboxPolicyInput } from "./schema.js";

// A fixed reference policy with every kind of grant a cell gets (writable workspace with a read-only skills subpath,
// private home and tmp, an extra read-only mount, a tmpfs, the gateway socket): any change to how this build makes a
// sandbox shows up in its options.
const REFERENCE_POLICY: SandboxPolicyInput = {
  workspace: { hostPath: "/host/workspace", mode: "rw", readOnlySubpaths: [".claude/skills"] },
  homeHostPath: "/host/home",
  tmpHostPath: "/host/tmp",
  mounts: [{ source: "/host/runtime", target: "/opt/runtime", mode: "ro" }],
  tmpfs: ["/workspace/node_modules/.vite-temp"],
  env: { PATH: "/usr/bin:/bin" },
  network: { mode: "gateway-socket", hostSocketPath: "/host/gateway.sock" },
};

/** What this build's sandbox is made of: the bwrap options of a fixed reference policy and the seccomp filter bytes. */
export interface SandboxPolicyDescription {
  readonly bwrapArgv: readonly string[];
  readonly seccompFilter: Buffer;
}

/**
 * The sandbox policy this build applies, as data a caller can digest (the runtime digest does). Pure apart from
 * compiling the filter for `arch`; reads nothing from the host.
 */
export function describeSandboxPolicy(arch: string = process.arch): SandboxPolicyDescription {
  return { bwrapArgv: buildBwrapArgv(REFERENCE_POLICY), seccompFilter: compileSeccompFilter(arch) };
}
