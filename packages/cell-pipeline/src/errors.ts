/** Stable codes for cell-pipeline failures; callers branch on these, never on messages. */
export type CellPipelineErrorCode =
  | "CELL_PIPELINE_SKILL_INVALID"
  | "CELL_PIPELINE_WORKSPACE_FAILED"
  /** git ran in the sandbox and refused the workspace (exited non-zero): what the tree holds, not the harness. */
  | "CELL_PIPELINE_WORKSPACE_REFUSED"
  | "CELL_PIPELINE_INPUT_INVALID"
  | "CELL_PIPELINE_REVIEW_LABELS_INVALID"
  | "CELL_PIPELINE_OVERLAY_FAILED";

/** Base error of cell-pipeline: thrown for environment failures and bugs, never for expected outcomes. */
export class CellPipelineError extends Error {
  readonly code: CellPipelineErrorCode;
  constructor(code: CellPipelineErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CellPipelineError";
    this.code = code;
  }
}

/** True for any CellPipelineError, also across module copies (checks the code prefix, not identity). */
export function isCellPipelineError(value: unknown): value is CellPipelineError {
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("CELL_PIPELINE_");
}
