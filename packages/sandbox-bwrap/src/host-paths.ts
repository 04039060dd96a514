import { SANDBOX_GATEWAY_SOCKET, SANDBOX_HOME, SANDBOX_TMP, SANDBOX_WORKSPACE, type SandboxPolicy } from "./schema.js";

/** In-sandbox path prefix → host path, as the host-unsafe backend needs to run a command without mounts. */
export type HostPathMap = ReadonlyArray<readonly [sandboxPath: string, hostPath: string]>;

/** Builds the sandbox→host prefix map of a policy; `home`/`tmp` are the host dirs standing in for private tmpfs. */
export function buildHostPathMap(policy: SandboxPolicy, dirs: { home: string; tmp: string }): HostPathMap {
  const entries: Array<[string, string]> = [
    [SANDBOX_HOME, policy.homeHostPath ?? dirs.home],
    [SANDBOX_TMP, policy.tmpHostPath ?? dirs.tmp],
  ];
  if (policy.workspace !== null) entries.push([SANDBOX_WORKSPACE, policy.workspace.hostPath]);
  for (const mount of policy.mounts) entries.push([mount.target, mount.source]);
  if (policy.network.mode === "gateway-socket") entries.push([SANDBOX_GATEWAY_SOCKET, policy.network.hostSocketPath]);
  // Longest prefix first, so /workspace/node_modules wins over /workspace.
  return entries.sort((a, b) => b[0].length - a[0].length);
}

/** Maps one in-sandbox path to its host path by longest prefix; paths outside every mount are returned unchanged. */
export function toHostPath(path: string, map: HostPathMap): string {
  for (const [inside, host] of map) {
    if (path === inside) return host;
    if (path.startsWith(`${inside}/`)) return `${host}${path.slice(inside.length)}`;
  }
  return path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Rewrites in-sandbox paths inside free text (argv, env values, prompts) to host paths, only at path boundaries:
 * the match must start the text or follow a non-path character, and be followed by `/`, whitespace, a quote, `:`
 * or the end — so `/review-output/review-output.json` maps only its first segment.
 */
export function rewriteSandboxText(text: string, map: HostPathMap): string {
  if (map.length === 0) return text;
  const alternatives = map.map(([inside]) => escapeRegExp(inside)).join("|");
  const pattern = new RegExp(`(^|[^A-Za-z0-9_.\\-/])(${alternatives})(?=$|[/\\s"'\`:])`, "g");
  return text.replace(pattern, (_match, lead: string, inside: string) => {
    const host = map.find(([p]) => p === inside)?.[1] ?? inside;
    return `${lead}${host}`;
  });
}
