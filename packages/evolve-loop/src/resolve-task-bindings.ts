import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { createSandboxedGitRunner } from "@wfbench/clone-sanitizer";
import { removeTree } from "@wfbench/durable-fs";
import { captureOracle } from "@wfbench/oracle-snapshot";
import { buildTaskBinding, createTaskSourceResolver, isReviewTask, loadTaskSuite, type SuiteSkills, type TaskDefinitionBinding } from "@wfbench/task-suite";
import { EvolveLoopError } from "./errors.js";

/** Where the suite is and how the runner child will read it (same tasks, oracle root and home). */
export interface ResolveTaskBindingsInput {
  readonly tasks: string;
  readonly includeExpensive: boolean;
  readonly oraclesRoot: string;
  readonly homeDir: string | null;
  /** A directory evolve owns; a private scratch directory is made and removed under it. */
  readonly scratchParent: string;
}

/** The suite's evaluated skills and the selected tasks' definition bindings, pinned once before generation 0. */
export interface ResolvedTaskBindings {
  readonly skills: SuiteSkills;
  readonly bindings: readonly TaskDefinitionBinding[];
  /** The ids of the selected review tasks (the others are implementation tasks). */
  readonly reviewTaskIds: readonly string[];
}

/**
 * Resolves every selected task's ref and oracle once (reference §9.1: bindings before generation 0), with the same
 * task-suite and oracle-snapshot calls the sweep uses, so every generation's sweep can be held to them
 * (`--task-bindings-json`). Git runs sandboxed. Throws EvolveLoopError(EVOLVE_LOOP_BAD_INPUT) naming the task and field.
 */
export async function resolveTaskBindings(input: ResolveTaskBindingsInput): Promise<ResolvedTaskBindings> {
  const suite = await loadTaskSuite(input.tasks, { includeExpensive: input.includeExpensive, homeDir: input.homeDir });
  if (!suite.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", suite.error.message);
  const tasks = suite.value.selected;
  if (tasks.length === 0) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `${input.tasks}: every task is expensive: pass --include-expensive`);
  const workDir = await mkdtemp(join(input.scratchParent, ".bindings-"));
  try {
    const git = createSandboxedGitRunner({ writableRoots: [workDir], readOnlyRoots: [...new Set(tasks.map((task) => task.repo))] });
    const resolver = createTaskSourceResolver({ git, workDir: join(workDir, "sources") });
    const bindings: TaskDefinitionBinding[] = [];
    for (const task of tasks) {
      const oracle = await captureOracle(task.oracle, input.oraclesRoot);
      if (!oracle.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `${input.tasks}: task ${JSON.stringify(task.id)} field ${oracle.error.field}: ${oracle.error.message} (oracle root ${input.oraclesRoot})`);
      const source = await resolver.resolve(task);
      if (!source.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `${input.tasks}: task ${JSON.stringify(task.id)} field ${source.error.field}: ${source.error.message}`);
      bindings.push(buildTaskBinding(task, source.value, oracle.value));
    }
    return { skills: suite.value.skills, bindings, reviewTaskIds: tasks.filter(isReviewTask).map((task) => task.id) };
  } finally {
    await removeTree(workDir);
  }
}
