import { MAX_CANONICAL_JSON_DEPTH, canonicalJson, inspectJsonGraph, type JsonGraphDefect } from "@wfbench/digest";
import type { TaskDefinitionBinding } from "@wfbench/task-suite";
import { z } from "zod";

const PinnedBindingsSchema = z.array(z.looseObject({ id: z.string().min(1) }));
const TargetBasesSchema = z.record(z.string(), z.string());

/**
 * `--task-bindings-json` (reference §2.1): the evolve driver's immutable task pins must equal the bindings this sweep
 * recomputed, task for task and field for field. Returns null when they do, else a refusal naming the task and the
 * first field that drifted. Pure; trusts nothing in `pinned`.
 */
export function findTaskBindingDrift(pinned: unknown, actual: readonly TaskDefinitionBinding[]): string | null {
  // The pins are compared through canonical JSON, which refuses what has none: say so here, naming the place. The
  // recomputed bindings are this build's own strings, finite counts and lists, so they always have one.
  const defect = inspectJsonGraph(pinned, { maxDepth: MAX_CANONICAL_JSON_DEPTH, pathKeys: 8 });
  if (defect !== null) return `--task-bindings-json ${defect.path.join(".") || "(root)"}: ${describeDefect(defect)}: pin the bindings the evolve driver wrote, unedited`;
  const parsed = PinnedBindingsSchema.safeParse(pinned);
  if (!parsed.success) return `--task-bindings-json must be a JSON list of task bindings, each with an "id" (${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? "invalid"})`;
  const given = new Map(parsed.data.map((binding) => [binding.id, binding as Record<string, unknown>]));
  if (given.size !== parsed.data.length) return "--task-bindings-json lists a task twice: pin each selected task once";
  for (const binding of actual) {
    const pin = given.get(binding.id);
    if (pin === undefined) return `--task-bindings-json has no pin for selected task ${JSON.stringify(binding.id)}: pass the bindings of exactly the selected tasks`;
    const fields = new Set([...Object.keys(binding), ...Object.keys(pin)]);
    for (const field of [...fields].sort()) {
      const recomputed: unknown = (binding as unknown as Record<string, unknown>)[field];
      if (canonicalJson(pin[field] ?? null) !== canonicalJson(recomputed ?? null)) return `task ${JSON.stringify(binding.id)} field ${field}: the pinned binding is ${canonicalJson(pin[field] ?? null).slice(0, 200)} but this sweep resolved ${canonicalJson(recomputed ?? null).slice(0, 200)}: the task definition drifted since it was pinned`;
    }
    given.delete(binding.id);
  }
  if (given.size > 0) return `--task-bindings-json pins task(s) this sweep does not select: ${[...given.keys()].join(", ")}`;
  return null;
}

function describeDefect(defect: JsonGraphDefect): string {
  if (defect.kind === "non-finite-number") return `${String(defect.value)} is not a JSON number (a number too large for a double, like 1e400)`;
  if (defect.kind === "too-deep") return `nests more than ${MAX_CANONICAL_JSON_DEPTH.toLocaleString("en-US")} levels, too deep to compare`;
  return "is not JSON data";
}

/**
 * `--promotion-target-bases-json` (reference §2.1): must equal the committed bytes' digests of every overlay
 * destination. Returns null when equal, else a refusal naming the first target that differs. Pure.
 */
export function findTargetBaseDrift(pinned: unknown, actual: Readonly<Record<string, string>>): string | null {
  const parsed = TargetBasesSchema.safeParse(pinned);
  if (!parsed.success) return "--promotion-target-bases-json must be a JSON object mapping each overlay target path to its sha256";
  const targets = [...new Set([...Object.keys(parsed.data), ...Object.keys(actual)])].sort();
  for (const target of targets) {
    if (parsed.data[target] !== actual[target]) return `--promotion-target-bases-json target ${target}: pinned ${parsed.data[target] ?? "(absent)"} but the tasks' committed bytes give ${actual[target] ?? "(absent)"}: the destination drifted since evolve pinned it`;
  }
  return null;
}
