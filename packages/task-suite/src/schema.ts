import { checkRelativePath, isBlankPython } from "@wfbench/pycompat";
import { z } from "zod";

/** Task ids: what reference §3.1 allows, so ids are safe in file names and transcript prefixes. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Skill names (a directory under `.claude/skills/`). */
export const SKILL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

// Blank as Python's str.strip() sees it, so "blank" means what the original harness meant (U+FEFF is content).
const nonblank = z.string({ error: "must be a string" }).refine((value) => !isBlankPython(value), "must not be blank");

/**
 * A repo-relative path as `sandbox_copy` / `sandbox_dependencies` declare it: @wfbench/pycompat's checkRelativePath
 * (the clone sanitizer's rule: no `.git` first part, at most 4096 bytes), and no leading `~`, which would read as a
 * home directory next to the `repo` field's `~` expansion.
 */
export const RepoRelativePathSchema = nonblank
  .refine((value) => !value.startsWith("~"), "must be relative to the repository, not to a home directory")
  .superRefine((value, ctx) => {
    const problem = checkRelativePath(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem.message });
  });

/** One `sandbox_dependencies` entry: exactly `source` and `target`. */
export const SandboxDependencySchema = z.strictObject({ source: RepoRelativePathSchema, target: RepoRelativePathSchema });

/**
 * One task entry of a suite file (reference §3.1) before the oracle is checked by @wfbench/oracle-snapshot.
 * Unknown keys are refused so a typo never silently drops a setting.
 */
export const TaskEntrySchema = z.strictObject({
  id: z.string({ error: "must be a string" }).regex(TASK_ID_PATTERN, "must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}"),
  class: nonblank,
  repo: nonblank,
  prompt: nonblank,
  verify: nonblank,
  ref: nonblank.optional(),
  setup: nonblank.optional(),
  expensive: z.boolean({ error: "must be true or false (a YAML boolean, not a string or number)" }).optional(),
  sandbox_copy: z.array(RepoRelativePathSchema, { error: "must be a list of repo-relative paths" }).optional(),
  sandbox_dependencies: z.array(SandboxDependencySchema, { error: "must be a list of {source, target} mappings" }).optional(),
  oracle: z.unknown(),
});
/** A task entry as written in the file (oracle still raw). */
export type TaskEntry = z.infer<typeof TaskEntrySchema>;

/** Names of the plan and work skills the workflow arms must invoke, and of the review skill the review arm must invoke. */
export const SuiteSkillsSchema = z.strictObject({
  plan: z.string().regex(SKILL_NAME_PATTERN, "must be a skill directory name"),
  work: z.string().regex(SKILL_NAME_PATTERN, "must be a skill directory name"),
  review: z.string().regex(SKILL_NAME_PATTERN, "must be a skill directory name").optional(),
});
/** The evaluated skills of a suite (the review skill defaults to the original's `gitnexus-review`). */
export interface SuiteSkills {
  readonly plan: string;
  readonly work: string;
  readonly review: string;
}

/** The top level of a suite file: a mapping with a `tasks` list and optionally the evaluated skill names. */
export const SuiteFileSchema = z.strictObject({
  tasks: z.array(z.unknown(), { error: "must be a list of task mappings" }).min(1, "must list at least one task"),
  skills: SuiteSkillsSchema.optional(),
});
