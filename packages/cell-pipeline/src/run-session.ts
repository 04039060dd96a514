import { CLAUDE_EXEC_ONLY_SHELL_ENV, CLAUDE_SESSION_ENV, SANDBOX_CLAUDE, SANDBOX_SHELL, SANDBOX_SHELL_PREFIX, assertExecOnlyBinary, buildClaudeArgv, isClaudeCliError } from "@wfbench/claude-cli";
import { lstat } from "node:fs/promises";
import { basename, join } from "node:path";
import { SETTINGS_STUB_PATHS } from "@wfbench/clone-sanitizer";
import { SANDBOX_GATEWAY_SOCKET, SANDBOX_WORKSPACE, runSandboxed, type Mount } from "@wfbench/sandbox-bwrap";
import { recordSessionEvidence, type RecordedSession } from "@wfbench/stream-json-evidence";
import { buildCliGatewayEnv } from "@wfbench/litellm-gateway";
import { SANDBOX_REVIEW_OUTPUT } from "@wfbench/review-scoring";
import { SANDBOX_CE_PLUGIN, type SessionSpec } from "./arms.js";
import type { SessionMcp } from "./build-mcp-config.js";
import { buildSandboxEnv } from "./build-sandbox-env.js";
import { CellPipelineError } from "./errors.js";

/** Everything one session needs from the cell. */
export interface SessionContext {
  readonly workspace: string;
  readonly homeHostPath: string;
  readonly tmpHostPath: string;
  readonly readOnlySkillRoots: readonly string[];
  /** Host path of the CLI staged execute-only (stageExecOnlyBinary); a readable binary is refused. */
  readonly claudePath: string;
  readonly shellPrefixPath: string;
  /** Host path of bash staged execute-only (stageExecOnlyShell): the CLI's own shell, so no shell it starts is dumpable. */
  readonly shellPath: string;
  /** Host path of the harness's read-only `{}` bound over the workspace's Claude Code settings files. */
  readonly settingsStubPath: string;
  readonly gatewaySocketPath: string;
  readonly token: string;
  readonly model: string;
  readonly effort: string;
  readonly timeoutMs: number;
  readonly outDir: string;
  readonly transcriptPrefix: string;
  /** The work skill, proven absent on a baseline (a contamination check, never an error by itself). */
  readonly contaminationSkill: string | null;
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal;
  /** The sandbox the session runs in (default `runSandboxed`); only tests replace it, to fail or script a session. */
  readonly sandbox?: SessionSandbox;
  /**
   * Review sessions only: the host directory bound writable at `/review-output` (reference §6.2: the directory, not the
   * file, so the Write tool's temp-file-and-rename works). The workspace is then mounted read-only.
   */
  readonly reviewOutputHostPath?: string;
  /** The task's dependencies, read-only at /workspace/<target> (reference §6.2 mount 1), and their `.vite-temp` tmpfs. */
  readonly dependencyMounts?: readonly Mount[];
  readonly dependencyTmpfs?: readonly string[];
  /** CE arms only: host path of the frozen CE plugin snapshot, bound read-only at SANDBOX_CE_PLUGIN and loaded with --plugin-dir. */
  readonly cePluginHostPath?: string;
  /** The arm's MCP configuration and the read-only mounts its relay needs (none for `baseline_nomcp`); absent: no servers. */
  readonly mcp?: { readonly session: SessionMcp; readonly mounts: readonly Mount[] };
}

/**
 * The settings stubs bind over files the sanitized template carries; were one missing (a task's setup removed it),
 * bwrap would create it in the workspace and the candidate's diff would show it. Refuses a link or non-file anywhere.
 */
async function assertSettingsTargets(workspace: string): Promise<void> {
  for (const path of SETTINGS_STUB_PATHS) {
    let current = workspace;
    for (const [index, part] of path.split("/").entries()) {
      current = join(current, part);
      const stats = await lstat(current).catch(() => null);
      const last = index === path.split("/").length - 1;
      if (stats === null || stats.isSymbolicLink() || (last ? !stats.isFile() : !stats.isDirectory())) {
        throw new CellPipelineError("CELL_PIPELINE_WORKSPACE_FAILED", `the workspace's ${path} is missing or not a regular file behind real directories; the sanitized template carries it, so the task's setup must leave it alone`);
      }
    }
  }
}

// stream-json-evidence's SESSION_ID_PATTERN: the only ids a transcript may be named after.
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/u;

/**
 * The session id a refused stream's salvaged transcript was named after (`<prefix>-<id>.jsonl`): the salvage takes the
 * first well-formed `session_id` of the capture where the evidence found none, so the row can still name the session
 * whose transcript it lists. Null when the name is the salvage's `nosession-<phase>` or not of that shape. Pure.
 */
export function salvagedSessionId(record: Pick<SessionRecord, "sessionId" | "artifact" | "phase">, prefix: string): string | null {
  if (record.sessionId !== null || record.artifact === null) return record.sessionId;
  const name = basename(record.artifact.path);
  if (!name.startsWith(`${prefix}-`) || !name.endsWith(".jsonl")) return null;
  const id = name.slice(prefix.length + 1, -".jsonl".length);
  return SESSION_ID.test(id) && id !== `nosession-${record.phase}` ? id : null;
}

/** The shape of `runSandboxed`, as a session uses it. */
export type SessionSandbox = typeof runSandboxed;

/**
 * What one session contributes to its row (reference §4.2, `sum_sessions` inputs), recorded by stream-json-evidence,
 * plus whether its stdout overflowed the capture bound (the sandbox's own count; absent: false).
 */
export type SessionRecord = RecordedSession<SessionSpec["phase"]> & { readonly captureOverflowed?: boolean };

/**
 * Runs one headless Claude Code session in the sandbox (workspace rw, skill roots ro, private home/tmp, no network but
 * the gateway socket, the cell's minted token) and turns the parent-captured stdout into evidence. Trusts nothing the
 * session writes to disk; only its stdout is evidence. Sandbox and evidence-library errors propagate to the cell.
 */
export async function runSession(spec: SessionSpec, context: SessionContext): Promise<SessionRecord> {
  try {
    await assertExecOnlyBinary(context.claudePath);
    await assertExecOnlyBinary(context.shellPath);
  } catch (error) {
    // A cell error, so the cell records an infra-error row rather than treating a mis-staged CLI as a harness bug.
    if (isClaudeCliError(error)) throw new CellPipelineError("CELL_PIPELINE_INPUT_INVALID", error.message, { cause: error });
    throw error;
  }
  const mounts: Mount[] = [
    ...(context.dependencyMounts ?? []),
    { source: context.claudePath, target: SANDBOX_CLAUDE, mode: "ro" },
    { source: context.shellPrefixPath, target: SANDBOX_SHELL_PREFIX, mode: "ro" },
    { source: context.shellPath, target: SANDBOX_SHELL, mode: "ro" },
    ...(context.cePluginHostPath === undefined ? [] : [{ source: context.cePluginHostPath, target: SANDBOX_CE_PLUGIN, mode: "ro" as const }]),
    ...(context.mcp?.mounts ?? []),
  ];
  const review = spec.phase === "review";
  await assertSettingsTargets(context.workspace);
  // The CLI reads (and hot-reloads) the project settings file; the harness's read-only `{}` sits on top of it and
  // of the local one, so the agent can neither write nor replace them (a mount point cannot be renamed or unlinked).
  for (const path of SETTINGS_STUB_PATHS) mounts.push({ source: context.settingsStubPath, target: `${SANDBOX_WORKSPACE}/${path}`, mode: "ro" });
  if (review) {
    if (context.reviewOutputHostPath === undefined) throw new TypeError("a review session needs its review-output directory");
    mounts.push({ source: context.reviewOutputHostPath, target: SANDBOX_REVIEW_OUTPUT, mode: "rw" });
  }
  const env: Record<string, string> = {
    ...buildSandboxEnv(),
    ...buildCliGatewayEnv({ model: context.model, token: context.token, socketPath: SANDBOX_GATEWAY_SOCKET }),
    ...CLAUDE_SESSION_ENV,
    ...CLAUDE_EXEC_ONLY_SHELL_ENV,
  };
  // Everything but the secrets is pinned in --settings too: the argv is readable in the sandbox, the env is not.
  const secrets = new Set([context.token, ...context.secrets]);
  const pinnedEnv = Object.fromEntries(Object.entries(env).filter(([, value]) => !secrets.has(value)));
  const sandbox = context.sandbox ?? runSandboxed;
  const result = await sandbox(
    {
      // The settings files are read-only subpaths too, which makes `.claude` itself a mount point: it cannot be renamed
      // away to plant a fresh `.claude/settings.json` beside the stubs.
      workspace: { hostPath: context.workspace, mode: review ? "ro" : "rw", readOnlySubpaths: review ? [] : [...context.readOnlySkillRoots, ...SETTINGS_STUB_PATHS] },
      homeHostPath: context.homeHostPath,
      tmpHostPath: context.tmpHostPath,
      mounts,
      tmpfs: [...(context.dependencyTmpfs ?? [])],
      env,
      network: { mode: "gateway-socket", hostSocketPath: context.gatewaySocketPath },
    },
    buildClaudeArgv({
      model: context.model,
      effort: context.effort,
      disallowSkill: spec.disallowSkill,
      allowEdit: spec.allowEdit,
      ...(spec.allowWrite === false ? { allowWrite: false } : {}),
      addDirs: review ? [SANDBOX_REVIEW_OUTPUT] : [],
      pinnedEnv,
      pluginDirs: context.cePluginHostPath === undefined ? [] : [SANDBOX_CE_PLUGIN],
      ...(spec.disableSlashCommands === true ? { disableSlashCommands: true } : {}),
      ...(context.mcp === undefined ? {} : { mcpConfig: context.mcp.session.config, mcpAllowedTools: context.mcp.session.allowedTools, mcpDisallowedTools: context.mcp.session.disallowedTools }),
    }),
    { timeoutMs: context.timeoutMs, stdin: spec.prompt, maxStdoutBytes: 8 * 1024 * 1024, ...(context.signal === undefined ? {} : { signal: context.signal }) },
  );
  const record = await recordSessionEvidence(spec, result, context);
  // A refused stream's id is found only by its transcript's salvage; the row names the session it lists (§4.2).
  return { ...record, sessionId: salvagedSessionId(record, context.transcriptPrefix), captureOverflowed: result.stdoutOverflow };
}
