import { checkRelativePath, hasLoneSurrogate, isBlankPython, utf8ByteLength } from "@wfbench/pycompat";
import { z } from "zod";
import { MAX_ORACLE_COMMAND_BYTES, MAX_ORACLE_FILES, MAX_ORACLE_PATH_BYTES } from "./limits.js";
import { checkOracleMode } from "./oracle-mode.js";

/** Stable rule names a declaration refusal carries; tests and callers branch on these. */
export type OracleDeclarationRule =
  | "not-a-mapping"
  | "unknown-key"
  | "missing-key"
  | "not-a-string"
  | "not-a-list"
  | "command-blank"
  | "command-too-long"
  | "command-has-nul"
  | "command-not-unicode"
  | "files-count"
  | "path-absolute"
  | "path-backslash"
  | "path-nul"
  | "path-not-unicode"
  | "path-too-long"
  | "path-bad-part"
  | "path-blank"
  | "path-under-git"
  | "duplicate-source"
  | "duplicate-target"
  | "targets-overlap"
  | "review-labels-target"
  | "mode-unknown"
  | "candidate-missing"
  | "candidate-without-black-box"
  | "review-black-box";

/**
 * Returns the first path rule a declared oracle path breaks, or null when it is a clean relative POSIX path
 * (@wfbench/pycompat's checkRelativePath, at most 240 bytes). The reference refuses any path starting with `.git`
 * (so `.github/…` and `.gitignore` too); a `.git` part deeper down (any case) could reach git metadata once staged.
 * An unpaired surrogate has no UTF-8 form, so two declared strings could share one digest and one staged name.
 */
export function findOraclePathViolation(path: string): { rule: OracleDeclarationRule; message: string } | null {
  const problem = checkRelativePath(path, { maxBytes: MAX_ORACLE_PATH_BYTES, git: "refuse-prefix-and-any-part" });
  return problem === null ? null : { rule: `path-${problem.rule}`, message: problem.message };
}

const oraclePath = z.string({ error: "must be a string" }).superRefine((path, ctx) => {
  const violation = findOraclePathViolation(path);
  if (violation) ctx.addIssue({ code: "custom", message: violation.message, params: { rule: violation.rule } });
});

/** One declared oracle file: exactly `source` (under the oracles root) and `target` (under the stage). */
export const OracleFileDeclarationSchema = z.strictObject(
  { source: oraclePath, target: oraclePath },
  { error: "must be a mapping with exactly 'source' and 'target'" },
);

const oracleCommand = z.string({ error: "must be a string" }).superRefine((command, ctx) => {
  // Blank as the original's strip() meant it: U+001C–U+001F and U+0085 are space, U+FEFF is not.
  if (isBlankPython(command))
    ctx.addIssue({ code: "custom", message: "must not be blank", params: { rule: "command-blank" } });
  if (hasLoneSurrogate(command))
    ctx.addIssue({ code: "custom", message: "must be valid Unicode (no lone surrogate)", params: { rule: "command-not-unicode" } });
  if (command.includes("\0"))
    ctx.addIssue({ code: "custom", message: "must not contain a NUL byte", params: { rule: "command-has-nul" } });
  if (utf8ByteLength(command) > MAX_ORACLE_COMMAND_BYTES)
    ctx.addIssue({
      code: "custom",
      message: `must be at most ${MAX_ORACLE_COMMAND_BYTES} bytes`,
      params: { rule: "command-too-long" },
    });
});

/** How an oracle meets the candidate's code (see oracle-mode.ts); absent means `in-process`, the original's way. */
export const OracleModeSchema = z.enum(["in-process", "black-box"], { error: "must be 'in-process' or 'black-box'" });

/**
 * A task's `oracle` mapping: `command` and `files` with the limits of the original harness, plus the optional
 * `mode` and, for `mode: black-box` only, the `candidate` command (same limits as `command`).
 */
export const OracleDeclarationSchema = z
  .strictObject(
    {
      mode: OracleModeSchema.optional(),
      candidate: oracleCommand.optional(),
      command: oracleCommand,
      files: z
        .array(OracleFileDeclarationSchema, { error: "must be a list" })
        .min(1, { error: "must list at least one file" })
        .max(MAX_ORACLE_FILES, { error: `must list at most ${MAX_ORACLE_FILES} files` }),
    },
    { error: "must be a mapping with exactly 'command' and 'files' (and optionally 'mode', 'candidate')" },
  )
  .superRefine((declaration, ctx) => {
    checkOracleMode(declaration, ctx);
    const seenSources = new Set<string>();
    const seenTargets = new Set<string>();
    declaration.files.forEach((file, index) => {
      if (seenSources.has(file.source))
        ctx.addIssue({
          code: "custom",
          path: ["files", index, "source"],
          message: `duplicates an earlier source '${file.source}'`,
          params: { rule: "duplicate-source" },
        });
      if (seenTargets.has(file.target))
        ctx.addIssue({
          code: "custom",
          path: ["files", index, "target"],
          message: `duplicates an earlier target '${file.target}'`,
          params: { rule: "duplicate-target" },
        });
      seenSources.add(file.source);
      seenTargets.add(file.target);
    });
    // A target that is a directory of another target could never be staged as both a file and a directory.
    declaration.files.forEach((file, index) => {
      const clash = declaration.files.find((other) => other.target.startsWith(`${file.target}/`));
      if (clash)
        ctx.addIssue({
          code: "custom",
          path: ["files", index, "target"],
          message: `is a parent of another target '${clash.target}'`,
          params: { rule: "targets-overlap" },
        });
    });
  });

/** A validated oracle declaration. */
export type OracleDeclaration = z.infer<typeof OracleDeclarationSchema>;
/** A validated oracle file entry. */
export type OracleFileDeclaration = z.infer<typeof OracleFileDeclarationSchema>;

/** What a command runner reports; unknown keys (stdout, stderr, anything) are stripped, never carried on. */
export const OracleRunReportSchema = z.object({
  state: z.string().min(1),
  exitCode: z.number().int().nullable(),
});

/** The only facts kept from an oracle run. */
export type OracleRunReport = z.infer<typeof OracleRunReportSchema>;
