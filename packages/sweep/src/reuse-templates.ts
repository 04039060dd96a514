import { join } from "node:path";
import { z } from "zod";
import { canonicalJson, compareCodePoints } from "@wfbench/digest";
import { readFileUnderRoot, writeFileAtomic } from "@wfbench/durable-fs";
import type { Arm } from "@wfbench/result-row";
import { REUSABLE_ARMS, cellKey, selectReusableRows, skillKey, type ReuseExpectation, type TaskReuseBinding } from "./comparator-reuse.js";
import type { ReuseSource } from "./materialize-reused-row.js";

/**
 * Written by every sweep next to results.jsonl: per task, the key of the sanitized template its cells started from
 * (repo identity, source sha, hidden paths, neutralized files and sanitizer version), the template's sanitized sha and
 * each arm's skill fingerprint of it. A later `--reuse-results` sweep whose template key is the same knows those
 * facts without building the template (reference §5.6: template preparation skipped for a fully reused task).
 */
export const TEMPLATE_BINDINGS_FILE = "template-bindings.json";
const MAX_BINDINGS_BYTES = 4 * 1024 * 1024;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/u);
const TemplateBindingSchema = z.strictObject({
  template_key: hex64,
  sanitized_sha: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u),
  /** Arm → the evaluated skills' fingerprint of the template (null for an arm that evaluates none). */
  skill_digests: z.record(z.string(), hex64.nullable()),
});
const TemplateBindingsSchema = z.strictObject({ schema_version: z.literal(1), tasks: z.record(z.string(), TemplateBindingSchema) });

/** What one task's template was: its cache key, sanitized sha and each arm's skill fingerprint. */
export type TemplateBinding = z.infer<typeof TemplateBindingSchema>;

/** Writes the sweep's template bindings (canonical JSON, atomic) into its output directory. */
export async function writeTemplateBindings(outDir: string, bindings: ReadonlyMap<string, TemplateBinding>): Promise<void> {
  const tasks = Object.fromEntries([...bindings].sort(([a], [b]) => compareCodePoints(a, b)));
  await writeFileAtomic(join(outDir, TEMPLATE_BINDINGS_FILE), `${canonicalJson({ schema_version: 1, tasks })}\n`, { mode: 0o644 });
}

/**
 * The template bindings an earlier sweep recorded, read with no link followed; an absent, unreadable or malformed
 * file yields none and a note (fail closed: every template is then prepared as usual).
 */
export async function readTemplateBindings(source: ReuseSource): Promise<{ bindings: ReadonlyMap<string, TemplateBinding>; note: string | null }> {
  let text: string;
  try {
    text = (await readFileUnderRoot(source.dir, TEMPLATE_BINDINGS_FILE, MAX_BINDINGS_BYTES)).bytes.toString("utf8");
  } catch (error) {
    if ((error as { errno?: unknown; code?: unknown }).errno === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOENT") return { bindings: new Map(), note: null };
    return { bindings: new Map(), note: `${source.dir}/${TEMPLATE_BINDINGS_FILE} unreadable (${(error as Error).message}): every template is prepared` };
  }
  let parsed: z.infer<typeof TemplateBindingsSchema>;
  try {
    parsed = TemplateBindingsSchema.parse(JSON.parse(text));
  } catch (error) {
    return { bindings: new Map(), note: `${source.dir}/${TEMPLATE_BINDINGS_FILE} malformed (${(error as Error).message.slice(0, 200)}): every template is prepared` };
  }
  return { bindings: new Map(Object.entries(parsed.tasks)), note: null };
}

/** One task as the skip decision sees it: its id, this sweep's template key, its reuse binding and planned cells. */
export interface TemplateSkipCandidate {
  readonly task: string;
  /** This sweep's key for the task's template (null: the declaration is refused, so the template is built to say why). */
  readonly templateKey: string | null;
  readonly binding: TaskReuseBinding;
}

/** Everything the skip decision reads; `expected` is the sweep's expectation minus the tasks and skill digests. */
export interface PlanTemplateSkipsInput {
  readonly candidates: readonly TemplateSkipCandidate[];
  /** The shard's planned cells, every task's (the health canary is chosen across all of them). */
  readonly cells: readonly { readonly task: string; readonly arm: Arm; readonly run: number }[];
  readonly recorded: ReadonlyMap<string, TemplateBinding>;
  readonly source: ReuseSource;
  readonly expected: Omit<ReuseExpectation, "tasks" | "skillDigests" | "sanitizedShas">;
}

/**
 * The tasks whose template (and index) need not be prepared, with the binding the earlier sweep recorded for each.
 * A task is skipped only when every one of these holds, so that each of its planned cells will be reused and nothing
 * of its template is needed: the earlier sweep recorded a template under this sweep's exact template key (same
 * inputs, same sanitizer version: the same bytes) with a skill fingerprint for each of the task's arms; every arm is a
 * reusable comparator; no planned cell of it is the first key of its arm (a possible health canary); and every planned
 * cell has a qualifying row under the recorded fingerprints and sanitized sha. A reused copy that still fails later
 * leaves its cell to be paid: the caller then prepares the template after all and checks it against the record.
 */
export function planTemplateSkips(input: PlanTemplateSkipsInput): Map<string, TemplateBinding> {
  const firstOfArm = new Map<string, string>();
  for (const cell of input.cells) {
    const key = cellKey(cell.task, cell.arm, cell.run);
    const held = firstOfArm.get(cell.arm);
    if (held === undefined || compareCodePoints(key, held) < 0) firstOfArm.set(cell.arm, key);
  }
  const eligible = new Map<string, { binding: TaskReuseBinding; recorded: TemplateBinding }>();
  for (const candidate of input.candidates) {
    const recorded = input.recorded.get(candidate.task);
    if (candidate.templateKey === null || recorded === undefined || recorded.template_key !== candidate.templateKey) continue;
    const cells = input.cells.filter((cell) => cell.task === candidate.task);
    if (cells.length === 0) continue;
    const fits = cells.every((cell) => REUSABLE_ARMS.includes(cell.arm) && Object.hasOwn(recorded.skill_digests, cell.arm) && firstOfArm.get(cell.arm) !== cellKey(cell.task, cell.arm, cell.run));
    if (fits) eligible.set(candidate.task, { binding: candidate.binding, recorded });
  }
  if (eligible.size === 0) return new Map();
  // The same selection the sweep makes later, over the same rows, with the same facts for these tasks.
  const selection = selectReusableRows(input.source.lines, { ...input.expected, ...expectationOf(eligible) });
  const skipped = new Map<string, TemplateBinding>();
  for (const [task, { recorded }] of eligible) {
    if (input.cells.filter((cell) => cell.task === task).every((cell) => selection.rows.has(cellKey(cell.task, cell.arm, cell.run)))) skipped.set(task, recorded);
  }
  return skipped;
}

/** The per-task part of a reuse expectation for tasks known only by their recorded template binding. */
export function expectationOf(tasks: ReadonlyMap<string, { readonly binding: TaskReuseBinding; readonly recorded: TemplateBinding }>): Pick<ReuseExpectation, "tasks" | "skillDigests" | "sanitizedShas"> {
  const bindings = new Map<string, TaskReuseBinding>();
  const skillDigests = new Map<string, string | null>();
  const sanitizedShas = new Map<string, string>();
  for (const [task, { binding, recorded }] of tasks) {
    bindings.set(task, binding);
    sanitizedShas.set(task, recorded.sanitized_sha);
    for (const [arm, digest] of Object.entries(recorded.skill_digests)) skillDigests.set(skillKey(task, arm), digest);
  }
  return { tasks: bindings, skillDigests, sanitizedShas };
}
