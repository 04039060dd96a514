import { isAbsolute } from "node:path";
import { isPathWithin } from "@wfbench/durable-fs";
import type { FailureOrigin } from "./judge-cell.js";

/** Where the cell stood when a failure interrupted it, and which of its paths the candidate could write. */
export interface FailureContext {
  /** A model session of the cell has started: from here on its writable paths hold what the candidate left. */
  readonly sessionsStarted: boolean;
  /** Host paths the candidate's processes could write (workspace, home, tmp, review output). */
  readonly candidateRoots: readonly string[];
}

// Host resources, not the tree: running out of descriptors, memory or disk is the host's state, whoever filled it.
const HOST_RESOURCE_CODES = new Set(["EMFILE", "ENFILE", "ENOMEM", "ENOSPC", "EDQUOT", "EIO", "EAGAIN", "EINTR", "ECANCELED", "ABORT_ERR"]);

// Only code running in the cell (the candidate's, imported by the oracle) can change the stage or the mountpoint in its
// workspace between staging and the check after the oracle, or plant the stage's name there.
const CELL_CAUSED_CODES = new Set(["CELL_PIPELINE_WORKSPACE_REFUSED", "ORACLE_STAGE_TAMPERED", "ORACLE_MOUNTPOINT_CHANGED", "ORACLE_STAGE_COLLISION"]);

/**
 * Root cause of a failure that interrupted a cell or its removal. `workspace` (the candidate's failure) only after a
 * session started, and only for: git refusing the workspace it had read before the session
 * (CELL_PIPELINE_WORKSPACE_REFUSED), a hidden-oracle stage or mountpoint changed or its name planted in the workspace
 * (ORACLE_STAGE_TAMPERED / ORACLE_MOUNTPOINT_CHANGED / ORACLE_STAGE_COLLISION), or a filesystem error about a path inside a candidate-writable root that is not
 * a host-resource error (a chain past PATH_MAX, a planted link or FIFO, a mode the candidate set). Everything else,
 * and everything before the first session (setup is the task's, not the candidate's), is the harness's. Pure.
 */
export function attributeFailure(error: unknown, context: FailureContext): FailureOrigin {
  if (!context.sessionsStarted || !(error instanceof Error)) return "harness";
  const e = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof e.code === "string" && CELL_CAUSED_CODES.has(e.code)) return "workspace";
  if (typeof e.code !== "string" || typeof e.syscall !== "string" || HOST_RESOURCE_CODES.has(e.code)) return "harness";
  const paths = [e.path, e.dest].filter((p): p is string => typeof p === "string" && isAbsolute(p));
  return paths.length > 0 && paths.every((path) => context.candidateRoots.some((root) => isPathWithin(root, path))) ? "workspace" : "harness";
}
