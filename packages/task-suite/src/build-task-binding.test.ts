import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createTaskAssetCache } from "@wfbench/clone-sanitizer";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { captureOracle } from "@wfbench/oracle-snapshot";
import { buildTaskBinding } from "./build-task-binding.js";
import { digestTaskPrompt } from "./digest-task-prompt.js";
import { loadTaskSuite } from "./load-task-suite.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const sha = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

describe("buildTaskBinding", () => {
  it("binds the demo task's definition, oracle and resolved commit (reference §3.1)", async () => {
    const suite = await loadTaskSuite(join(ROOT, "tasks/demo.yaml"), { homeDir: null });
    if (!suite.ok) throw new Error(suite.error.message);
    const task = suite.value.tasks.find((t) => t.id === "demo-review-median");
    if (task === undefined) throw new Error("demo-review-median is missing");
    const oracle = await captureOracle(task.oracle, join(ROOT, "oracles"));
    if (!oracle.ok) throw new Error(oracle.error.message);
    const commit = "f".repeat(40);
    const plain = buildTaskBinding(task, { repo: "/tmp/sources/x", sha: commit, origin: "plain-files", assets: null }, oracle.value);
    expect(plain).toEqual({
      id: "demo-review-median",
      class: "review-defect",
      repo_identity: task.repo,
      ref: "HEAD",
      prompt_digest: digestTaskPrompt(task.prompt),
      setup_digest: sha(task.setup ?? ""),
      verify_digest: sha(task.verify),
      expensive: false,
      sandbox_copy: [],
      sandbox_dependencies: [],
      sandbox_dependency_content_digest: sha("[]"),
      sandbox_dependency_manifest_digest: sha('{"dependencies":[],"schema_version":1}'),
      oracle_digest: oracle.value.binding.oracle_digest,
      oracle_command_digest: oracle.value.binding.oracle_command_digest,
      oracle_manifest_digest: oracle.value.binding.oracle_manifest_digest,
      oracle_files: oracle.value.binding.oracle_files,
      resolved_sha: commit,
    });
    expect(task.setup).not.toBeNull();
    // A git source is bound by its repository; a plain-file source by its declared directory.
    expect(buildTaskBinding(task, { repo: "/repos/x", sha: commit, origin: "git", assets: null }, oracle.value).repo_identity).toBe("/repos/x");
  });

  it("binds a task's dependency digests from its asset snapshot, so a changed dependency tree is a different task", async () => {
    const suite = await loadTaskSuite(join(ROOT, "tasks/demo.yaml"), { homeDir: null });
    if (!suite.ok) throw new Error(suite.error.message);
    const demo = suite.value.tasks.find((t) => t.id === "demo-clamp");
    if (demo === undefined) throw new Error("demo-clamp is missing");
    const oracle = await captureOracle(demo.oracle, join(ROOT, "oracles"));
    if (!oracle.ok) throw new Error(oracle.error.message);
    const base = mkdtempSync(join(tmpdir(), "binding-assets-"));
    const cache = createTaskAssetCache(join(base, "cache"));
    mkdirSync(join(base, "cache"));
    try {
      const task = { ...demo, sandboxDependencies: [{ source: "node_modules", target: "node_modules" }] };
      const digestsOf = async (content: string, name: string) => {
        const repo = join(base, name);
        mkdirSync(join(repo, "node_modules"), { recursive: true });
        writeFileSync(join(repo, "node_modules/a.js"), content);
        const snapshot = await cache.acquire({ repoIdentity: repo, resolvedSha: "f".repeat(40), sourceRoot: repo, declarations: { sandbox_dependencies: [...task.sandboxDependencies] } });
        if (!snapshot.ok) throw new Error(snapshot.error.message);
        const binding = buildTaskBinding(task, { repo, sha: "f".repeat(40), origin: "git", assets: snapshot.value }, oracle.value);
        expect(binding.sandbox_dependency_content_digest).toBe(snapshot.value.dependencyContentDigest);
        expect(binding.sandbox_dependency_manifest_digest).toBe(snapshot.value.dependencyManifestDigest);
        expect(binding.sandbox_dependencies).toEqual([{ source: "node_modules", target: "node_modules" }]);
        return [binding.sandbox_dependency_content_digest, binding.sandbox_dependency_manifest_digest];
      };
      const one = await digestsOf("export const a = 1;\n", "one");
      const two = await digestsOf("export const a = 2;\n", "two");
      expect(one[0]).not.toBe(sha("[]"));
      expect(one[0]).not.toBe(two[0]);
      expect(one[1]).not.toBe(two[1]);
    } finally {
      await cache.dispose();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
