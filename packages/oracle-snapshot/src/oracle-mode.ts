import type { z } from "zod";

/**
 * How an oracle meets the candidate's code. `in-process` (the original's only way, the default): the oracle command
 * runs with the stage mounted and itself imports or runs the candidate, so candidate code can read the hidden files.
 * `black-box`: the declared `candidate` command runs first in a sandbox without the stage, and the oracle command
 * only reads that run's captured output, never the workspace.
 */
export type OracleMode = "in-process" | "black-box";

/** The part of a declaration that decides its mode. */
export interface OracleModeFields {
  readonly mode?: OracleMode | undefined;
  readonly candidate?: string | undefined;
}

/** Adds the mode rules to a declaration's zod refinement: `candidate` exactly when `mode` is `black-box`. */
export function checkOracleMode(declaration: OracleModeFields, ctx: z.RefinementCtx): void {
  if (declaration.mode === "black-box" && declaration.candidate === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["candidate"],
      message: "is required with mode 'black-box' (the command that runs the candidate's code without the stage)",
      params: { rule: "candidate-missing" },
    });
  if (declaration.mode !== "black-box" && declaration.candidate !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["candidate"],
      message: "is only allowed with mode 'black-box'",
      params: { rule: "candidate-without-black-box" },
    });
}

// Neither command may hold a NUL (the declaration refuses it), so NUL-joined frames are unambiguous, and no
// in-process command can ever equal a black-box identity.
const BLACK_BOX_TAG = "wfbench-oracle-mode\0black-box";

/**
 * The text the oracle digests bind in place of the bare command (reference §4.5: `oracle_command_digest` =
 * sha256(command)). In-process it IS the command, so existing bindings keep their digests; black-box it binds the
 * mode, the candidate command and the oracle command together, so changing any of them changes every oracle digest.
 * Trusts its inputs to be validated (no NUL).
 */
export function oracleCommandIdentity(command: string, mode: OracleMode, candidate: string | null): string {
  return mode === "black-box" ? `${BLACK_BOX_TAG}\0${candidate ?? ""}\0${command}` : command;
}
