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
  /** A case of the suite's `review_cases` corpus: its patch is copied in and applied by a generated setup (§3.2). */
  review_case: nonblank.optional(),
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

/** Where a suite's MCP server files are mounted in the cell and in the server's own sandbox. */
export const MCP_MOUNT_ROOT = "/opt/mcp";

// An absolute in-sandbox path without `..`, NUL or a trailing slash (it becomes a bwrap argument).
const sandboxPath = z
  .string({ error: "must be a string" })
  .regex(/^\/[^\0]*$/u, "must be an absolute in-sandbox path")
  .refine((value) => !value.split("/").includes("..") && !value.includes("//") && !value.endsWith("/"), "must be normalised (no .., // or trailing /)");

/** One read-only file or directory an MCP server needs: a host path (relative to the suite file) and its place under /opt/mcp. */
export const McpServerMountSchema = z.strictObject({
  source: nonblank,
  target: sandboxPath.refine((value) => value.startsWith(`${MCP_MOUNT_ROOT}/`), `must lie under ${MCP_MOUNT_ROOT}/`),
});

/**
 * One `mcp_servers` entry: a stdio MCP server the arms (all but `baseline_nomcp`) get as `mcp__<name>__*` tools. The
 * command runs in a sandbox of its own: the workspace read-only, no network, fresh home and tmp, the node binary at
 * /opt/claude/node and only its declared mounts.
 */
export const McpServerSchema = z.strictObject({
  name: z
    .string({ error: "must be a string" })
    .regex(/^[a-z][a-z0-9_-]{0,63}$/u, "must be 1-64 lower-case letters, digits, - or _, starting with a letter (tools become mcp__<name>__<tool>)")
    .refine((value) => !value.includes("__"), "must not contain __ (it separates server and tool in mcp__<name>__<tool>)"),
  command: sandboxPath,
  args: z.array(z.string({ error: "must be a string" }).refine((arg) => !arg.includes("\0"), "must not contain NUL"), { error: "must be a list of strings" }).max(64).default([]),
  mounts: z.array(McpServerMountSchema, { error: "must be a list of {source, target} mappings" }).max(16).default([]),
});

/** Where the index builder writes its output (writable in its sandbox, nowhere else). */
export const INDEX_OUTPUT_DIR = "/index-output";

/**
 * The suite's `index_builder`: a command run once per sanitized commit in a sandbox without network (the sanitized
 * source read-only at /workspace, an empty writable /index-output), whose output every MCP-keeping arm then sees
 * read-only at /workspace/<output>, proved free of harness markers first.
 */
export const IndexBuilderSchema = z.strictObject({
  command: sandboxPath,
  args: z.array(z.string({ error: "must be a string" }).refine((arg) => !arg.includes("\0"), "must not contain NUL"), { error: "must be a list of strings" }).max(64).default([]),
  output: RepoRelativePathSchema,
  mounts: z.array(McpServerMountSchema, { error: "must be a list of {source, target} mappings" }).max(16).default([]),
});

/** The top level of a suite file: a mapping with a `tasks` list and optionally the evaluated skill names and MCP servers. */
export const SuiteFileSchema = z.strictObject({
  tasks: z.array(z.unknown(), { error: "must be a list of task mappings" }).min(1, "must list at least one task"),
  skills: SuiteSkillsSchema.optional(),
  mcp_servers: z.array(McpServerSchema, { error: "must be a list of MCP server mappings" }).max(8).optional(),
  index_builder: IndexBuilderSchema.optional(),
  /** The review-case corpus directory (relative to the suite file), ending in eval/workflow_bench/review_cases. */
  review_cases: nonblank.optional(),
});
