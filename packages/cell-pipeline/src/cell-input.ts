import type { Template } from "@wfbench/clone-sanitizer";
import type { CellUsageSummary, StreamAccounting } from "@wfbench/litellm-gateway";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import type { Arm } from "@wfbench/result-row";
import type { McpServer, ResolvedSource, SuiteSkills, Task } from "@wfbench/task-suite";
import type { CandidateOverlayFile } from "./read-candidate-overlay.js";
import type { SessionSandbox } from "./run-session.js";

/** The frozen CE plugin snapshot a CE arm's sessions load (plugin-snapshot output, already checked against §6.9). */
export interface CellCePlugin {
  /** Host path of the 0555 snapshot, bound read-only at SANDBOX_CE_PLUGIN. */
  readonly hostPath: string;
  readonly version: string;
  /** `ce_plugin_manifest_digest`: canonical JSON + sha256 of the snapshot's file list. */
  readonly manifestDigest: string;
}

/** Which backend runs every process of the cell: bwrap, or the host-unsafe one (no isolation, review arms only). */
export interface CellBackend {
  readonly kind: "bwrap" | "host-unsafe";
  readonly run: SessionSandbox;
}

/** The gateway as a cell sees it: one minted token per cell, revoked when the model is done, then summarised. */
export interface CellGateway {
  readonly hostSocketPath: string;
  mintCellToken(cellId: string): string;
  revokeCell(cellId: string): number;
  /** With the cell's stream accounting, also counts the served requests its CLI streams do not account for. */
  summarizeCell(cellId: string, stream?: StreamAccounting): CellUsageSummary;
  flush(): Promise<void>;
}

/** A built, proved-clean index of the cell's sanitized commit (the suite's `index_builder` output). */
export interface CellIndex {
  /** The harness-private output directory, bound read-only at /workspace/<output>. */
  readonly hostDir: string;
  /** Repo-relative path the index appears at in the workspace. */
  readonly output: string;
  readonly snapshotDigest: string;
  readonly manifestDigest: string;
}

/** Everything one (task, arm, repeat) needs; all of it is the harness's own, already validated data. */
export interface RunCellInput {
  readonly task: Task;
  readonly arm: Arm;
  /** 0-based repeat. */
  readonly run: number;
  readonly skills: SuiteSkills;
  readonly source: ResolvedSource;
  readonly template: Template;
  readonly oracle: OracleSnapshot;
  readonly model: string;
  readonly effort: string;
  readonly proposerModel: string | null;
  /** Host path of the verified Claude Code binary staged execute-only (stageExecOnlyBinary), mounted at /opt/claude/claude. */
  readonly claudePath: string;
  /** Host path of the shell-prefix wrapper (see renderShellPrefix), mounted read-only. */
  readonly shellPrefixPath: string;
  /** Host path of bash staged execute-only (stageExecOnlyShell), mounted at /opt/claude/bash. */
  readonly shellPath: string;
  readonly gateway: CellGateway;
  /** Label recorded in the row: `scripted`, `anthropic`, … */
  readonly upstream: string;
  /** Private scratch directory for cell copies (removed per cell). */
  readonly workDir: string;
  /** The sweep's output directory (transcripts, patches). */
  readonly outDir: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** The validated candidate overlay and its digest; required for candidate arms, ignored by the others. */
  readonly overlay?: { readonly files: readonly CandidateOverlayFile[]; readonly digest: string };
  /** The sandbox the model sessions run in (default `runSandboxed`); a test seam, never set by the runner. */
  readonly sessionSandbox?: SessionSandbox;
  /** The CE plugin snapshot; required for CE arms, ignored by the others. */
  readonly cePlugin?: CellCePlugin;
  /** The backend of every process the cell starts (default bwrap); host-unsafe is recorded in the row. */
  readonly backend?: CellBackend;
  /**
   * The suite's MCP servers, the host node binary their relay and sandboxes run on, and the index of the cell's
   * sanitized commit when the suite builds one; absent or no servers: none.
   */
  readonly mcp?: { readonly servers: readonly McpServer[]; readonly nodePath: string; readonly index?: CellIndex };
  /** The sweep's runtime digest (docs/runtime-digest.md), recorded as the row's `runtime_digest`; null when unknown. */
  readonly runtimeDigest?: string | null;
}
