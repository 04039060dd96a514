import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { SANDBOX_NODE, type CellIndex } from "@wfbench/cell-pipeline";
import { inspectRelativePath, proveIndexClean, type Template } from "@wfbench/clone-sanitizer";
import { redactText } from "@wfbench/redact";
import { runSandboxed } from "@wfbench/sandbox-bwrap";
import { INDEX_OUTPUT_DIR, type IndexBuilder } from "@wfbench/task-suite";

/** What building the indexes of a sweep needs. */
export interface BuildIndexesInput {
  readonly builder: IndexBuilder;
  readonly templates: readonly Template[];
  /** A fresh harness-private directory: one output directory per sanitized commit goes under it. */
  readonly dir: string;
  readonly nodePath: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs the suite's index builder once per sanitized commit (reference §7.3, not tied to GitNexus): the sanitized tree
 * read-only at /workspace, an empty writable /index-output, no network, fresh home and tmp, node and the builder's
 * mounts read-only. Each output is proved free of harness markers before any arm sees it. Returns the indexes by
 * sanitized sha, or the first refusal (a builder that failed, a dirty output, an output path the tree already has).
 */
export async function buildIndexes(input: BuildIndexesInput): Promise<{ ok: true; value: Map<string, CellIndex> } | { ok: false; error: string }> {
  const { builder } = input;
  const indexes = new Map<string, CellIndex>();
  await mkdir(input.dir, { mode: 0o700 });
  for (const template of input.templates) {
    if (indexes.has(template.sanitizedSha)) continue;
    // The cell binds the index over an empty directory it creates there; a tree that has the path would be shadowed.
    const existing = await inspectRelativePath(template.path, builder.output);
    if (existing.kind !== "absent") return { ok: false, error: `index_builder.output ${builder.output} already exists in the sanitized tree of ${template.sourceSha}: choose a path the repository does not use` };
    const hostDir = join(input.dir, template.sanitizedSha);
    await mkdir(hostDir, { mode: 0o700 });
    const result = await runSandboxed(
      {
        workspace: { hostPath: template.path, mode: "ro" },
        mounts: [
          { source: input.nodePath, target: SANDBOX_NODE, mode: "ro" },
          ...builder.mounts.map((mount) => ({ ...mount, mode: "ro" as const })),
          { source: hostDir, target: INDEX_OUTPUT_DIR, mode: "rw" },
        ],
        env: { HOME: "/home/agent", TMPDIR: "/tmp", PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", WFBENCH_INDEX_OUTPUT: INDEX_OUTPUT_DIR },
        network: { mode: "none" },
        hostname: "index-builder",
      },
      [builder.command, ...builder.args],
      { timeoutMs: input.timeoutMs, maxStdoutBytes: 64 * 1024, ...(input.signal === undefined ? {} : { signal: input.signal }) },
    );
    if (!result.ok) {
      return { ok: false, error: `index_builder ${result.state} (exit ${String(result.exitCode)}) on ${template.sourceSha}${result.setupError === null ? "" : ` (${result.setupError})`}: ${redactText(result.stderrTail.trim().slice(-800), [])}` };
    }
    const proof = await proveIndexClean(hostDir);
    if (!proof.ok) return { ok: false, error: `index_builder output for ${template.sourceSha} refused before any arm ran: ${proof.error}` };
    indexes.set(template.sanitizedSha, { hostDir, output: builder.output, snapshotDigest: proof.value.snapshotDigest, manifestDigest: proof.value.manifestDigest });
  }
  return { ok: true, value: indexes };
}
