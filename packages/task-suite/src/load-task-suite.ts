import { open } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { validateOracleDeclaration, type OracleDeclaration } from "@wfbench/oracle-snapshot";
import { ROOT_FIELD, formatIssuePath, isBlankPython } from "@wfbench/pycompat";
import type { z } from "zod";
import { isReviewTask } from "./is-review-task.js";
import { MAX_TASK_FILE_BYTES, oversize, parseSuiteYaml } from "./parse-suite-yaml.js";
import { REVIEW_CASES_DIR, loadReviewCaseCorpus, reviewCaseSetupCommand, type ReviewCaseCorpus } from "./review-case-corpus.js";
import { SuiteFileSchema, TaskEntrySchema, type SuiteSkills } from "./schema.js";

/** One validated MCP server of a suite; mount sources are absolute host paths (not yet checked to exist). */
export interface McpServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly mounts: readonly { readonly source: string; readonly target: string }[];
}

/** The skills a suite evaluates when it names none: the original harness's plan, work and review skills. */
export const DEFAULT_SUITE_SKILLS: SuiteSkills = { plan: "gitnexus-plan", work: "gitnexus-work", review: "gitnexus-review" };

/** One validated task; `repo` is absolute, optional fields carry their defaults. */
export interface Task {
  readonly id: string;
  readonly class: string;
  readonly repo: string;
  readonly prompt: string;
  readonly verify: string;
  readonly ref: string;
  readonly setup: string | null;
  readonly expensive: boolean;
  readonly sandboxCopy: readonly string[];
  readonly sandboxDependencies: readonly { readonly source: string; readonly target: string }[];
  readonly oracle: OracleDeclaration;
  /** The harness checkout its `eval/workflow_bench/review_cases/*` copies come from (set by `review_case`). */
  readonly harnessRoot?: string;
}

/** A loaded review-case corpus and the harness root it sits in (`<root>/eval/workflow_bench/review_cases`). */
export interface LoadedReviewCorpus {
  readonly harnessRoot: string;
  readonly corpus: ReviewCaseCorpus;
}

/** A validated index builder; mount sources are absolute host paths, `output` is repo-relative. */
export interface IndexBuilder {
  readonly command: string;
  readonly args: readonly string[];
  readonly output: string;
  readonly mounts: readonly { readonly source: string; readonly target: string }[];
}

/** A validated suite: every task, the ones selected for this run, and the expensive ones left out. */
export interface TaskSuite {
  readonly file: string;
  readonly skills: SuiteSkills;
  /** The suite's `mcp_servers`, in file order (empty when it declares none). */
  readonly mcpServers: readonly McpServer[];
  /** The suite's `index_builder`, or null. */
  readonly indexBuilder: IndexBuilder | null;
  readonly tasks: readonly Task[];
  readonly selected: readonly Task[];
  readonly skippedExpensive: readonly string[];
}

/** Why a suite file was refused: the task (id, or its list position when the id itself is bad), the field and the fix. */
export interface TaskSuiteRefusal {
  readonly file: string;
  readonly task: string | null;
  readonly field: string;
  readonly message: string;
  readonly fix: string;
  /** How many problems were found in all; `message` describes the first. */
  readonly problems: number;
}

/** Result of loading a suite. */
export type TaskSuiteResult = { readonly ok: true; readonly value: TaskSuite } | { readonly ok: false; readonly error: TaskSuiteRefusal };

/** Options of {@link loadTaskSuite} / {@link parseTaskSuite}. */
export interface LoadTaskSuiteOptions {
  /** Include tasks marked `expensive: true` (default false). */
  readonly includeExpensive?: boolean;
  /** Expands a leading `~/` in `repo`; null refuses such paths (packages never read the environment). */
  readonly homeDir?: string | null;
}

const FIXES: Readonly<Record<string, string>> = {
  id: "use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, unique in the file",
  class: "set a nonblank class such as `trivial` or `investigation-bug`",
  repo: "point repo at a git repository or a plain source directory (relative paths are resolved against the task file)",
  prompt: "write the task text every arm receives",
  verify: "give the model-visible test command, run with /bin/sh -c in the read-only workspace",
  ref: "name a commit, branch or tag, or drop the key to use HEAD",
  setup: "give a shell command or drop the key",
  expensive: "write `expensive: true` or `expensive: false` (a YAML boolean) or drop the key",
  sandbox_copy: "list repo-relative paths that do not overlap and are not under .gitnexus or eval/workflow_bench",
  sandbox_dependencies: "list mappings with exactly `source` and `target`, repo-relative, non-overlapping targets",
  oracle:
    "declare `oracle: {command: <hidden test command>, files: [{source: <path under oracles/>, target: <staged name>}]}`, optionally with `mode: black-box` and a `candidate: <command that runs the candidate>` (docs/task-writing.md)",
  tasks: "make the top level a mapping with a `tasks:` list of task mappings",
  skills: "write `skills: {plan: <skill dir>, work: <skill dir>, review: <skill dir>}` (review optional) or drop the key",
  index_builder:
    "write `index_builder: {command: <absolute in-sandbox path>, args: [...], output: <repo-relative dir>, mounts: [{source: <host path>, target: /opt/mcp/<dir>}]}` next to `mcp_servers` (docs/task-writing.md)",
  review_case: "name a case id listed in the suite's review_cases manifest, and drop setup and sandbox_copy (both are generated)",
  review_cases: "point review_cases at a directory <harness>/eval/workflow_bench/review_cases holding manifest.json and one <id>.patch per case",
  mcp_servers:
    "list mappings `{name: <server>, command: <absolute in-sandbox path>, args: [...], mounts: [{source: <host path>, target: /opt/mcp/<dir>}]}` with unique names and mount targets (docs/task-writing.md)",
};
const HIDDEN_ASSET_ROOTS = [".gitnexus", "eval/workflow_bench"];
const ALLOWED_HARNESS_ASSETS = "eval/workflow_bench/review_cases/";

function fixFor(field: string): string {
  const head = field.replace(/[.[].*$/u, "");
  return FIXES[head] ?? "see reference §3.1 for the task file format";
}

function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { field: "(unknown)", message: "invalid" };
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    return { field: formatIssuePath([...issue.path, key]), message: `unknown key ${JSON.stringify(key)}` };
  }
  // zod words a missing key as a type error; say what the author has to do.
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return { field: formatIssuePath(issue.path), message: "is required" };
  return { field: formatIssuePath(issue.path), message: issue.message };
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function isHiddenAsset(path: string): boolean {
  return HIDDEN_ASSET_ROOTS.some((root) => overlaps(path, root)) && !path.startsWith(ALLOWED_HARNESS_ASSETS);
}

function checkAssetPaths(paths: readonly string[], field: string): { field: string; message: string } | null {
  for (let i = 0; i < paths.length; i += 1) {
    const path = paths[i] as string;
    if (isHiddenAsset(path)) return { field: `${field}[${i}]`, message: `${JSON.stringify(path)} is a harness or graph path a task may not copy` };
    for (let j = 0; j < i; j += 1) {
      if (overlaps(path, paths[j] as string)) return { field: `${field}[${i}]`, message: `overlaps ${field}[${j}]` };
    }
  }
  return null;
}

function resolveRepo(repo: string, baseDir: string, homeDir: string | null): string | null {
  if (repo === "~" || repo.startsWith("~/")) return homeDir === null ? null : resolve(homeDir, `.${repo.slice(1)}`);
  return isAbsolute(repo) ? resolve(repo) : resolve(baseDir, repo);
}

/**
 * Validates suite YAML text (reference §3.1): a `tasks` list of strict task mappings, unique ids, boolean `expensive`,
 * safe asset paths and an oracle accepted by @wfbench/oracle-snapshot. Trusts nothing in the text; refuses with the
 * task, the field and the fix. `baseDir` resolves relative `repo` paths. Never touches the disk.
 */
export function parseTaskSuite(text: string, file: string, baseDir: string, options: LoadTaskSuiteOptions = {}, reviewCorpus: LoadedReviewCorpus | null = null): TaskSuiteResult {
  const refuse = (task: string | null, field: string, message: string, problems = 1, fix = fixFor(field)): TaskSuiteResult => ({
    ok: false,
    error: { file, task, field, message: `${file}: ${task === null ? "" : `task ${JSON.stringify(task)}, `}field ${field}: ${message}. Fix: ${fix}`, fix, problems },
  });
  const parsed = parseSuiteYaml(text);
  if (!parsed.ok) return refuse(null, parsed.field, parsed.message, 1, parsed.fix);
  const raw = parsed.value;
  const top = SuiteFileSchema.safeParse(raw);
  if (!top.success) {
    const issue = firstIssue(top.error);
    return refuse(null, issue.field === ROOT_FIELD ? "tasks" : issue.field, issue.field === ROOT_FIELD ? "the top level must be a mapping" : issue.message, top.error.issues.length);
  }
  if (top.data.review_cases !== undefined && reviewCorpus === null) return refuse(null, "review_cases", "the corpus was not loaded (use loadTaskSuite, which reads it)");
  const mcpServers: McpServer[] = [];
  const mountTargets = new Set<string>();
  for (const [index, server] of (top.data.mcp_servers ?? []).entries()) {
    if (mcpServers.some((other) => other.name === server.name)) return refuse(null, `mcp_servers[${index}].name`, `${JSON.stringify(server.name)} is declared twice`);
    const mounts: { source: string; target: string }[] = [];
    for (const [at, mount] of server.mounts.entries()) {
      // Every target is one bind in the cell, shared by the servers' sandboxes: no two may overlap.
      const clash = [...mountTargets].find((target) => target === mount.target || target.startsWith(`${mount.target}/`) || mount.target.startsWith(`${target}/`));
      if (clash !== undefined) return refuse(null, `mcp_servers[${index}].mounts[${at}].target`, `overlaps the mount target ${clash} declared earlier`);
      const source = resolveRepo(mount.source, baseDir, options.homeDir ?? null);
      if (source === null) return refuse(null, `mcp_servers[${index}].mounts[${at}].source`, "starts with ~ but no home directory is known");
      mounts.push({ source, target: mount.target });
      mountTargets.add(mount.target);
    }
    mcpServers.push({ name: server.name, command: server.command, args: server.args, mounts });
  }
  let indexBuilder: IndexBuilder | null = null;
  const builder = top.data.index_builder;
  if (builder !== undefined) {
    if (mcpServers.length === 0) return refuse(null, "index_builder", "needs at least one entry in mcp_servers (only MCP servers read the index)");
    if (isHiddenAsset(builder.output)) return refuse(null, "index_builder.output", `${JSON.stringify(builder.output)} is a harness path`);
    const mounts: { source: string; target: string }[] = [];
    for (const [at, mount] of builder.mounts.entries()) {
      const source = resolveRepo(mount.source, baseDir, options.homeDir ?? null);
      if (source === null) return refuse(null, `index_builder.mounts[${at}].source`, "starts with ~ but no home directory is known");
      mounts.push({ source, target: mount.target });
    }
    indexBuilder = { command: builder.command, args: builder.args, output: builder.output, mounts };
  }
  const tasks: Task[] = [];
  const seen = new Map<string, number>();
  for (let index = 0; index < top.data.tasks.length; index += 1) {
    const entryRaw = top.data.tasks[index];
    const rawId = typeof entryRaw === "object" && entryRaw !== null ? (entryRaw as Record<string, unknown>)["id"] : undefined;
    const label = typeof rawId === "string" && !isBlankPython(rawId) ? rawId : `tasks[${index}]`;
    const entry = TaskEntrySchema.safeParse(entryRaw);
    if (!entry.success) {
      const issue = firstIssue(entry.error);
      return refuse(label, issue.field === ROOT_FIELD ? `tasks[${index}]` : issue.field, issue.field === ROOT_FIELD ? "must be a mapping" : issue.message, entry.error.issues.length);
    }
    const value = entry.data;
    const earlier = seen.get(value.id);
    if (earlier !== undefined) return refuse(value.id, "id", `duplicate of tasks[${earlier}]`);
    seen.set(value.id, index);
    if (!("oracle" in (entryRaw as object))) return refuse(value.id, "oracle", "is required");
    const copyProblem = checkAssetPaths(value.sandbox_copy ?? [], "sandbox_copy");
    if (copyProblem !== null) return refuse(value.id, copyProblem.field, copyProblem.message);
    const dependencies = value.sandbox_dependencies ?? [];
    const sourceProblem = checkAssetPaths(dependencies.map((d) => d.source), "sandbox_dependencies.source");
    if (sourceProblem !== null) return refuse(value.id, sourceProblem.field.replace(/^sandbox_dependencies\.source\[(\d+)\]$/u, "sandbox_dependencies[$1].source"), sourceProblem.message);
    const targetProblem = checkAssetPaths(dependencies.map((d) => d.target), "sandbox_dependencies.target");
    if (targetProblem !== null) return refuse(value.id, targetProblem.field.replace(/^sandbox_dependencies\.target\[(\d+)\]$/u, "sandbox_dependencies[$1].target"), targetProblem.message);
    const declared = validateOracleDeclaration(value.id, value.oracle, "implementation");
    // A task staging review labels is a review task; validating it as one adds the review rules (no black-box mode).
    const oracle = declared.ok && isReviewTask({ oracle: declared.value }) ? validateOracleDeclaration(value.id, value.oracle, "review") : declared;
    if (!oracle.ok) {
      const first = oracle.error.issues[0];
      return refuse(value.id, first?.field ?? "oracle", first?.message ?? oracle.error.message, oracle.error.issues.length);
    }
    const repo = resolveRepo(value.repo, baseDir, options.homeDir ?? null);
    if (repo === null) return refuse(value.id, "repo", "starts with ~ but no home directory is known");
    let reviewCase: { setup: string; copy: string; harnessRoot: string } | null = null;
    if (value.review_case !== undefined) {
      if (reviewCorpus === null) return refuse(value.id, "review_case", "the suite declares no review_cases corpus");
      if (value.setup !== undefined || value.sandbox_copy !== undefined) return refuse(value.id, value.setup !== undefined ? "setup" : "sandbox_copy", "is generated for a review_case task");
      if (!isReviewTask({ oracle: oracle.value })) return refuse(value.id, "review_case", "belongs to a review task (its oracle stages review-labels.json)");
      const found = reviewCorpus.corpus.cases.find((c) => c.id === value.review_case);
      if (found === undefined) return refuse(value.id, "review_case", `${JSON.stringify(value.review_case)} is not in the corpus (cases: ${reviewCorpus.corpus.cases.map((c) => c.id).join(", ")})`);
      reviewCase = { setup: reviewCaseSetupCommand(found.patch), copy: `${REVIEW_CASES_DIR}/${found.patch}`, harnessRoot: reviewCorpus.harnessRoot };
    }
    tasks.push({
      id: value.id,
      class: value.class,
      repo,
      prompt: value.prompt,
      verify: value.verify,
      ref: value.ref ?? "HEAD",
      setup: reviewCase?.setup ?? value.setup ?? null,
      expensive: value.expensive ?? false,
      sandboxCopy: reviewCase === null ? (value.sandbox_copy ?? []) : [reviewCase.copy],
      sandboxDependencies: dependencies,
      oracle: oracle.value,
      ...(reviewCase === null ? {} : { harnessRoot: reviewCase.harnessRoot }),
    });
  }
  const includeExpensive = options.includeExpensive ?? false;
  const selected = tasks.filter((task) => includeExpensive || !task.expensive);
  return {
    ok: true,
    value: {
      file,
      skills: top.data.skills === undefined ? DEFAULT_SUITE_SKILLS : { ...top.data.skills, review: top.data.skills.review ?? DEFAULT_SUITE_SKILLS.review },
      mcpServers,
      indexBuilder,
      tasks,
      selected,
      skippedExpensive: tasks.filter((task) => !selected.includes(task)).map((task) => task.id),
    },
  };
}

/**
 * Reads and validates a suite file; relative `repo` paths resolve against the file's directory. An unreadable file is
 * a refusal naming the path (bad input, not an outage).
 */
export async function loadTaskSuite(path: string, options: LoadTaskSuiteOptions = {}): Promise<TaskSuiteResult> {
  const file = resolve(path);
  let read: Awaited<ReturnType<typeof readBounded>>;
  try {
    read = await readBounded(file);
  } catch (cause) {
    return {
      ok: false,
      error: { file, task: null, field: "tasks", message: `${file}: cannot read the task file (${(cause as NodeJS.ErrnoException).code ?? "error"}). Fix: pass --tasks <path to a task YAML file>`, fix: "pass --tasks <path to a task YAML file>", problems: 1 },
    };
  }
  if ("oversize" in read) {
    const refusal = oversize(read.oversize);
    return { ok: false, error: { file, task: null, field: refusal.field, message: `${file}: field ${refusal.field}: ${refusal.message}. Fix: ${refusal.fix}`, fix: refusal.fix, problems: 1 } };
  }
  const { text } = read;
  const corpus = await loadDeclaredCorpus(text, file, options);
  if (corpus !== null && "error" in corpus) return { ok: false, error: corpus.error };
  return parseTaskSuite(text, file, dirname(file), options, corpus);
}

/** The suite's `review_cases` corpus read from disk, null when it declares none (a YAML error is left to the parser). */
async function loadDeclaredCorpus(text: string, file: string, options: LoadTaskSuiteOptions): Promise<LoadedReviewCorpus | { error: TaskSuiteRefusal } | null> {
  const parsed = parseSuiteYaml(text);
  if (!parsed.ok) return null;
  const raw = parsed.value;
  const declared = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)["review_cases"] : undefined;
  if (typeof declared !== "string" || isBlankPython(declared)) return null;
  const refusal = (field: string, message: string): { error: TaskSuiteRefusal } => ({
    error: { file, task: null, field, message: `${file}: field ${field}: ${message}. Fix: ${fixFor("review_cases")}`, fix: fixFor("review_cases"), problems: 1 },
  });
  const dir = resolveRepo(declared, dirname(file), options.homeDir ?? null);
  if (dir === null) return refusal("review_cases", "starts with ~ but no home directory is known");
  if (!dir.endsWith(`/${REVIEW_CASES_DIR}`)) return refusal("review_cases", `${dir} does not end in ${REVIEW_CASES_DIR} (the cell copies each patch to that path)`);
  const loaded = await loadReviewCaseCorpus(dir);
  if (!loaded.ok) return refusal(`review_cases: ${loaded.error.field}`, loaded.error.message);
  return { harnessRoot: dir.slice(0, -REVIEW_CASES_DIR.length - 1), corpus: loaded.value };
}

// Sized by fstat on the open handle, so a huge file is refused without reading it; parseSuiteYaml bounds the text read.
async function readBounded(file: string): Promise<{ readonly text: string } | { readonly oversize: number }> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size > MAX_TASK_FILE_BYTES) return { oversize: size };
    return { text: await handle.readFile("utf8") };
  } finally {
    await handle.close();
  }
}
