import { digestJson, sha256Hex } from "@wfbench/digest";
import type { OracleSnapshot } from "@wfbench/oracle-snapshot";
import { digestTaskPrompt } from "./digest-task-prompt.js";
import type { Task } from "./load-task-suite.js";
import type { ResolvedSource } from "./resolve-task-source.js";

/** A selected task's definition binding (reference §3.1, promotion.json `selected_tasks[*]`). */
export type TaskDefinitionBinding = {
  readonly id: string;
  readonly class: string;
  readonly repo_identity: string;
  readonly ref: string;
  readonly prompt_digest: string;
  readonly setup_digest: string;
  readonly verify_digest: string;
  readonly expensive: boolean;
  readonly sandbox_copy: string[];
  readonly sandbox_dependencies: { source: string; target: string }[];
  readonly sandbox_dependency_content_digest: string;
  readonly sandbox_dependency_manifest_digest: string;
  readonly oracle_digest: string;
  readonly oracle_command_digest: string;
  readonly oracle_manifest_digest: string;
  readonly oracle_files: { target: string; sha256: string; size: number }[];
  readonly resolved_sha: string;
};

/**
 * A selected task's definition binding (reference §3.1): its identity, the digests of its prompt, setup and verify,
 * its oracle's digests and files, the dependency digests of its asset snapshot (those of an empty dependency list when
 * it declares none), and the commit its ref resolved to. Trusts its inputs (already validated); a plain-file source is
 * bound by its declared directory, its commit being per sweep.
 */
export function buildTaskBinding(task: Task, source: ResolvedSource, oracle: OracleSnapshot): TaskDefinitionBinding {
  const binding = oracle.binding;
  return {
    id: task.id,
    class: task.class,
    repo_identity: source.origin === "git" ? source.repo : task.repo,
    ref: task.ref,
    prompt_digest: digestTaskPrompt(task.prompt),
    setup_digest: sha256Hex(task.setup ?? ""),
    verify_digest: sha256Hex(task.verify),
    expensive: task.expensive,
    sandbox_copy: [...task.sandboxCopy],
    sandbox_dependencies: task.sandboxDependencies.map((dep) => ({ ...dep })),
    sandbox_dependency_content_digest: source.assets?.dependencyContentDigest ?? digestJson([]),
    sandbox_dependency_manifest_digest: source.assets?.dependencyManifestDigest ?? digestJson({ dependencies: [], schema_version: 1 }),
    oracle_digest: binding.oracle_digest,
    oracle_command_digest: binding.oracle_command_digest,
    oracle_manifest_digest: binding.oracle_manifest_digest,
    oracle_files: binding.oracle_files.map((file) => ({ ...file })),
    resolved_sha: source.sha,
  };
}
