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
  | "path-under-git"
  | "duplicate-source"
  | "duplicate-target"
  | "targets-overlap"
  | "review-labels-target"
  | "mode-unknown"
  | "candidate-missing"
  | "candidate-without-black-box"
  | "review-black-box";

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");

// An unpaired surrogate has no UTF-8 form: Buffer would hash and stage it as U+FFFD, so two different declared
// strings could share one digest and one staged name. The original's `.encode()` raised on them.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Exactly the characters Python's str.isspace() accepts, so "blank" means what the original's strip() meant
// (JS trim() differs: it keeps U+001C–U+001F and U+0085 but strips U+FEFF).
const PYTHON_WHITESPACE = /^[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** Returns the first path rule a declared oracle path breaks, or null when it is a clean relative POSIX path. */
export function findOraclePathViolation(path: string): { rule: OracleDeclarationRule; message: string } | null {
  if (path.includes("\0")) return { rule: "path-nul", message: "must not contain a NUL byte" };
  if (path.includes("\\")) return { rule: "path-backslash", message: "must use '/' separators, never a backslash" };
  if (LONE_SURROGATE.test(path)) return { rule: "path-not-unicode", message: "must be valid Unicode (no lone surrogate)" };
  if (path.startsWith("/")) return { rule: "path-absolute", message: "must be relative to its root, not absolute" };
  if (utf8Length(path) > MAX_ORACLE_PATH_BYTES)
    return { rule: "path-too-long", message: `must be at most ${MAX_ORACLE_PATH_BYTES} bytes` };
  const parts = path.split("/");
  if (parts.some((part) => part === "" || part === "." || part === ".."))
    return { rule: "path-bad-part", message: "must not have empty, '.' or '..' parts" };
  // The reference refuses any path starting with `.git` (so `.github/…` and `.gitignore` too); a `.git` part
  // deeper down (any case: case-insensitive filesystems exist) could reach git metadata once staged.
  if (path.toLowerCase().startsWith(".git") || parts.some((part) => part.toLowerCase() === ".git"))
    return { rule: "path-under-git", message: "must not start with .git or lie under a .git directory" };
  return null;
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
  if (PYTHON_WHITESPACE.test(command))
    ctx.addIssue({ code: "custom", message: "must not be blank", params: { rule: "command-blank" } });
  if (LONE_SURROGATE.test(command))
    ctx.addIssue({ code: "custom", message: "must be valid Unicode (no lone surrogate)", params: { rule: "command-not-unicode" } });
  if (command.includes("\0"))
    ctx.addIssue({ code: "custom", message: "must not contain a NUL byte", params: { rule: "command-has-nul" } });
  if (utf8Length(command) > MAX_ORACLE_COMMAND_BYTES)
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
