import { createHash } from "node:crypto";
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
});
