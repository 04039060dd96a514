import type { Template } from "@wfbench/clone-sanitizer";
import type { CellUsageSummary, StreamAccounting } from "@wfbench/litellm-gateway";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import type { Arm } from "@wfbench/result-row";
import type { ResolvedSource, SuiteSkills, Task } from "@wfbench/task-suite";
import type { CandidateOverlayFile } from "./read-candidate-overlay.js";
import type { SessionSandbox } from "./run-session.js";

/** The gateway as a cell sees it: one minted token per cell, revoked when the model is done, then summarised. */
export interface CellGateway {
  readonly hostSocketPath: string;
  mintCellToken(cellId: string): string;
  revokeCell(cellId: string): number;
  /** With the cell's stream accounting, also counts the served requests its CLI streams do not account for. */
  summarizeCell(cellId: string, stream?: StreamAccounting): CellUsageSummary;
  flush(): Promise<void>;
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
  /** The sweep's runtime digest (docs/runtime-digest.md), recorded as the row's `runtime_digest`; null when unknown. */
  readonly runtimeDigest?: string | null;
}
