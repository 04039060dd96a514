import { checkRelativePath } from "@wfbench/pycompat";
import { z } from "zod";

/** Longest repo-relative path accepted anywhere (bytes, UTF-8), matching the task-asset limit. */
export const MAX_RELATIVE_PATH_BYTES = 4096;

const HARNESS_ROOT = "eval/workflow_bench";

/** Harness folders every template drops whether or not a task lists them (spec §7.2 removes eval/workflow_bench). */
export const HARNESS_HIDDEN_PATHS: readonly string[] = [HARNESS_ROOT];
/**
 * Claude Code's project settings files. Sessions read the project source (project skills load only with it), and a
 * settings file's `env`, `apiKeyHelper` or hooks would reach the cell token, so every template carries these as
 * {@link SETTINGS_STUB_CONTENT} (a task repo's own are replaced, recorded in the manifest) and the cell pipeline covers
 * them with read-only harness stubs of the same bytes during sessions: never a change in any diff.
 */
export const SETTINGS_STUB_PATHS: readonly string[] = [".claude/settings.json", ".claude/settings.local.json"];
/** The inert bytes of every settings stub: an empty JSON object. */
export const SETTINGS_STUB_CONTENT = "{}\n";
const REVIEW_CASES_ROOT = "eval/workflow_bench/review_cases";
const GRAPH_ROOT = ".gitnexus";

/**
 * A repo-relative posix path (@wfbench/pycompat's checkRelativePath: no traversal, no absolute form, no `.git` first
 * part, at most MAX_RELATIVE_PATH_BYTES); trusts nothing about the disk.
 */
export const RelativePathSchema = z.string().superRefine((value, ctx) => {
  const problem = checkRelativePath(value, { maxBytes: MAX_RELATIVE_PATH_BYTES });
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem.message });
});

/** True when `a` equals `b` or one contains the other as a directory prefix. */
export function pathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

function refuseOverlaps(values: readonly string[], ctx: z.RefinementCtx, field: string): void {
  for (let i = 0; i < values.length; i += 1) {
    for (let j = 0; j < i; j += 1) {
      const a = values[i];
      const b = values[j];
      if (a !== undefined && b !== undefined && pathsOverlap(a, b)) {
        ctx.addIssue({ code: "custom", path: [field, i], message: `overlaps ${field}[${j}] (${b})` });
      }
    }
  }
}

const HexShaSchema = z
  .string()
  .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "must be a full lower-case 40- or 64-hex commit id");

/** One file the sanitizer overwrites with inert bytes before committing (e.g. `.gitnexusrc` → `{}\n`). */
export const NeutralizeEntrySchema = z.strictObject({
  path: RelativePathSchema,
  content: z.string().max(65_536),
});

/** Input of prepareTemplate: trusts nothing; refuses traversal, overlap and non-absolute repos. */
export const PrepareTemplateInputSchema = z
  .strictObject({
    repo: z.string().startsWith("/", "must be an absolute path").refine((v) => !v.includes("\0"), "must not contain NUL"),
    sha: HexShaSchema,
    hiddenPaths: z.array(RelativePathSchema).max(1024),
    neutralize: z.array(NeutralizeEntrySchema).max(64).default([]),
  })
  .superRefine((input, ctx) => {
    // A stub is written after hidden paths are removed: hiding one (or `.claude`) would contradict the template.
    for (const [i, hidden] of input.hiddenPaths.entries()) {
      const stub = SETTINGS_STUB_PATHS.find((path) => pathsOverlap(path, hidden));
      if (stub !== undefined) ctx.addIssue({ code: "custom", path: ["hiddenPaths", i], message: `overlaps the always-stubbed ${stub}; hide entries beside it instead` });
    }
    for (let i = 0; i < input.neutralize.length; i += 1) {
      const entry = input.neutralize[i];
      if (entry === undefined) continue;
      const hidden = input.hiddenPaths.findIndex((h) => pathsOverlap(h, entry.path));
      if (hidden >= 0) {
        ctx.addIssue({ code: "custom", path: ["neutralize", i, "path"], message: `overlaps hiddenPaths[${hidden}]` });
      }
      const stub = SETTINGS_STUB_PATHS.find((path) => path === entry.path);
      if (stub !== undefined) ctx.addIssue({ code: "custom", path: ["neutralize", i, "path"], message: `is the always-stubbed ${stub}` });
      const harness = HARNESS_HIDDEN_PATHS.find((h) => pathsOverlap(h, entry.path));
      if (harness !== undefined) {
        ctx.addIssue({ code: "custom", path: ["neutralize", i, "path"], message: `overlaps the always-hidden ${harness}` });
      }
      for (let j = 0; j < i; j += 1) {
        const other = input.neutralize[j];
        if (other !== undefined && pathsOverlap(other.path, entry.path)) {
          ctx.addIssue({ code: "custom", path: ["neutralize", i, "path"], message: `overlaps neutralize[${j}]` });
        }
      }
    }
  });

/** Raw (pre-parse) shape of prepareTemplate's input. */
export type PrepareTemplateInput = z.input<typeof PrepareTemplateInputSchema>;
/** Parsed prepareTemplate input. */
export type PrepareTemplateRequest = z.output<typeof PrepareTemplateInputSchema>;

/** One `sandbox_dependencies` entry: exactly `source` and `target`. */
export const DependencyDeclarationSchema = z.strictObject({
  source: RelativePathSchema,
  target: RelativePathSchema,
});

/** A task's asset declarations (§3.1 rules); refuses harness/graph paths except review-case copies. */
export const TaskAssetDeclarationsSchema = z
  .strictObject({
    sandbox_copy: z.array(RelativePathSchema).default([]),
    sandbox_dependencies: z.array(DependencyDeclarationSchema).default([]),
  })
  .superRefine((decl, ctx) => {
    decl.sandbox_copy.forEach((path, i) => {
      if (isUnder(path, GRAPH_ROOT)) {
        ctx.addIssue({ code: "custom", path: ["sandbox_copy", i], message: "must not import a prebuilt .gitnexus graph" });
      } else if (isUnder(path, HARNESS_ROOT) && !path.startsWith(`${REVIEW_CASES_ROOT}/`)) {
        ctx.addIssue({ code: "custom", path: ["sandbox_copy", i], message: "must not copy harness files" });
      }
    });
    refuseOverlaps(decl.sandbox_copy, ctx, "sandbox_copy");
    decl.sandbox_dependencies.forEach((dep, i) => {
      for (const key of ["source", "target"] as const) {
        if (isUnder(dep[key], GRAPH_ROOT) || isUnder(dep[key], HARNESS_ROOT)) {
          ctx.addIssue({
            code: "custom",
            path: ["sandbox_dependencies", i, key],
            message: "must not reference .gitnexus or harness paths",
          });
        }
      }
    });
    const targets = decl.sandbox_dependencies.map((dep) => dep.target);
    for (let i = 0; i < targets.length; i += 1) {
      for (let j = 0; j < i; j += 1) {
        const a = targets[i];
        const b = targets[j];
        if (a !== undefined && b !== undefined && pathsOverlap(a, b)) {
          ctx.addIssue({
            code: "custom",
            path: ["sandbox_dependencies", i, "target"],
            message: `overlaps sandbox_dependencies[${j}].target`,
          });
        }
      }
    }
    decl.sandbox_copy.forEach((path, i) => {
      const j = targets.findIndex((t) => pathsOverlap(t, path));
      if (j >= 0) {
        ctx.addIssue({ code: "custom", path: ["sandbox_copy", i], message: `overlaps sandbox_dependencies[${j}].target` });
      }
    });
  });

/** Raw task asset declarations. */
export type TaskAssetDeclarationsInput = z.input<typeof TaskAssetDeclarationsSchema>;
/** Parsed task asset declarations. */
export type TaskAssetDeclarations = z.output<typeof TaskAssetDeclarationsSchema>;
