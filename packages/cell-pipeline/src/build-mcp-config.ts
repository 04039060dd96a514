import { canonicalJson } from "@wfbench/digest";
import type { KnownArm } from "@wfbench/result-row";
import { z } from "zod";

/** In-sandbox path of the bwrap binary the cell mounts for nested sandboxes (reference §6.2 mount 5). */
export const SANDBOX_BWRAP = "/opt/claude/bwrap";

/** One MCP server a suite declares: a stdio command with in-sandbox paths, plus the extra read-only paths it needs. */
export const McpServerDeclarationSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/u, "must be lower-case letters, digits, - or _ (it becomes mcp__<name>__*)"),
    command: z.string().regex(/^\/[^\0]*$/u, "must be an absolute in-sandbox path"),
    args: z.array(z.string().refine((arg) => !arg.includes("\0"), "must not contain NUL")).max(64).default([]),
    readOnlyPaths: z.array(z.string().regex(/^\/(?!.*(?:^|\/)\.\.(?:\/|$))[^\0]*$/u, "must be an absolute path without ..")).max(16).default([]),
  })
  .strict();

/** A declared MCP server as suites write it. */
export type McpServerDeclaration = z.input<typeof McpServerDeclarationSchema>;

/** What one session's argv gets: the `--mcp-config` JSON and the MCP tool patterns to allow and to refuse. */
export interface SessionMcp {
  readonly config: string;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
}

// Each server runs in a sandbox of its own inside the cell: no network, the workspace read-only, a fresh home and
// tmp, only the declared paths; nothing it writes survives and it cannot see the oracle (staged only after sessions).
function nestedPrefix(server: z.output<typeof McpServerDeclarationSchema>): string[] {
  const args = ["-i", SANDBOX_BWRAP, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  for (const path of ["/usr", "/bin", "/lib", "/lib64", "/etc/ssl", "/etc/passwd", "/etc/group"]) args.push("--ro-bind-try", path, path);
  args.push("--ro-bind", "/workspace", "/workspace", "--ro-bind", "/opt/claude/node", "/opt/claude/node");
  for (const path of server.readOnlyPaths) args.push("--ro-bind", path, path);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/run", "--tmpfs", "/tmp", "--tmpfs", "/home", "--dir", "/home/agent", "--clearenv");
  args.push("--setenv", "HOME", "/home/agent", "--setenv", "TMPDIR", "/tmp", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8");
  args.push("--chdir", "/workspace", "--");
  return args;
}

/**
 * The strict, clone-local MCP configuration of one session (reference §6.4, Appendix B): every declared server, each
 * behind its own nested bwrap (`env -i` first, so the session's environment and its token never reach it) with the
 * workspace read-only and no network; `baseline_nomcp` gets `{"mcpServers":{}}` and every server's tools refused.
 * Other arms, `baseline` included, keep the tools (a baseline loses only its skills). Throws a ZodError for a malformed
 * declaration and a TypeError for a duplicate name.
 */
export function buildSessionMcp(arm: KnownArm, declarations: readonly McpServerDeclaration[]): SessionMcp {
  const servers = declarations.map((declaration) => McpServerDeclarationSchema.parse(declaration));
  const names = servers.map((server) => server.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new TypeError(`MCP server ${duplicate} is declared twice: give each server its own name`);
  const patterns = names.map((name) => `mcp__${name}`);
  if (arm === "baseline_nomcp") return { config: canonicalJson({ mcpServers: {} }), allowedTools: [], disallowedTools: patterns };
  const mcpServers = Object.fromEntries(servers.map((server) => [server.name, { type: "stdio", command: "/usr/bin/env", args: [...nestedPrefix(server), server.command, ...server.args] }]));
  return { config: canonicalJson({ mcpServers }), allowedTools: patterns, disallowedTools: [] };
}
