import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadTaskSuite } from "./load-task-suite.js";
import { loadReviewCaseCorpus, reviewCaseSetupCommand } from "./review-case-corpus.js";

const PATCH = "diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-old\n+new\n";
const CASE = {
  id: "pr-12-defect",
  pr: "https://github.com/example/repo/pull/12",
  base_sha: "a".repeat(40),
  head_sha: "b".repeat(40),
  patch_sha256: sha256Hex(PATCH),
  human_verification_commit: "c".repeat(40),
  label_source: "PR review follow-up commit",
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A corpus directory holding `manifest` (serialised unless a string) and the given files. */
function corpus(manifest: unknown, files: Record<string, string> = { "pr-12-defect.patch": PATCH }): string {
  const dir = mkdtempSync(join(tmpdir(), "wfbench-corpus-"));
  dirs.push(dir);
  writeFileSync(join(dir, "manifest.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const manifest = (cases: unknown[] = [CASE], extra: Record<string, unknown> = {}) => ({ schema_version: 1, corpus_version: "2026-09-04", cases, ...extra });

describe("loadReviewCaseCorpus", () => {
  it("reads the cases with their patch names once every patch matches its digest", async () => {
    const clean = { ...CASE, id: "pr-12-clean", label_source: "merged final PR snapshot", patch_sha256: sha256Hex("clean\n") };
    const result = await loadReviewCaseCorpus(corpus(manifest([CASE, clean]), { "pr-12-defect.patch": PATCH, "pr-12-clean.patch": "clean\n" }));
    expect(result).toEqual({ ok: true, value: { corpusVersion: "2026-09-04", cases: [{ ...CASE, patch: "pr-12-defect.patch" }, { ...clean, patch: "pr-12-clean.patch" }] } });
  });

  it("refuses a patch whose bytes drifted from the recorded digest, naming both digests", async () => {
    const result = await loadReviewCaseCorpus(corpus(manifest(), { "pr-12-defect.patch": `${PATCH}+planted\n` }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.field).toBe("cases[0].patch_sha256");
    expect(result.error.message).toContain(`the manifest records ${CASE.patch_sha256}`);
    expect(result.error.message).toContain(sha256Hex(`${PATCH}+planted\n`));
  });

  it("refuses a missing patch and a patch that is a link", async () => {
    const missing = await loadReviewCaseCorpus(corpus(manifest(), {}));
    expect(!missing.ok && missing.error).toMatchObject({ field: "cases[0].patch_sha256", message: expect.stringContaining("does not exist") });
    const dir = corpus(manifest(), { "elsewhere.txt": PATCH });
    symlinkSync(join(dir, "elsewhere.txt"), join(dir, "pr-12-defect.patch"));
    const linked = await loadReviewCaseCorpus(dir);
    expect(!linked.ok && linked.error).toMatchObject({ field: "cases[0].patch_sha256", message: expect.stringContaining("link") });
  });

  it.each([
    ["a case id with a slash (the patch name must be one segment)", manifest([{ ...CASE, id: "../escape" }]), "cases[0].id"],
    ["a case id of dots", manifest([{ ...CASE, id: ".." }]), "cases[0].id"],
    ["a schema version other than 1", manifest([CASE], { schema_version: 2 }), "schema_version"],
    ["a corpus version that is no date", manifest([CASE], { corpus_version: "latest" }), "corpus_version"],
    ["a non-https PR", manifest([{ ...CASE, pr: "http://example.com/pull/1" }]), "cases[0].pr"],
    ["an upper-case sha", manifest([{ ...CASE, base_sha: "A".repeat(40) }]), "cases[0].base_sha"],
    ["an unknown label source", manifest([{ ...CASE, label_source: "a guess" }]), "cases[0].label_source"],
    ["an unknown key", manifest([{ ...CASE, patch: "x.patch" }]), "cases[0].patch"],
    ["a missing field", manifest([{ ...CASE, human_verification_commit: undefined }]), "cases[0].human_verification_commit"],
    ["no cases", manifest([]), "cases"],
    ["a duplicate id", manifest([CASE, CASE]), "cases[1].id"],
    ["a manifest that is not JSON", "{cases:", "manifest.json"],
  ])("refuses %s, naming the field", async (_name, text, field) => {
    const result = await loadReviewCaseCorpus(corpus(text));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.field).toBe(field);
  });

  it("refuses a corpus without a manifest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wfbench-corpus-"));
    dirs.push(dir);
    const result = await loadReviewCaseCorpus(dir);
    expect(!result.ok && result.error).toMatchObject({ field: "manifest.json", message: expect.stringContaining("does not exist") });
  });
});

describe("reviewCaseSetupCommand", () => {
  it("applies the copied patch outside the corpus directory, then removes the corpus (reference §3.2)", () => {
    expect(reviewCaseSetupCommand("pr-12-defect.patch")).toBe("git apply --exclude='eval/workflow_bench/*' eval/workflow_bench/review_cases/pr-12-defect.patch && rm -rf eval/workflow_bench");
  });

  it.each(["../x.patch", "a/b.patch", "x.diff", ".patch", "x y.patch", "x.patch;rm -rf ~"])("refuses the patch name %s", (name) => {
    expect(() => reviewCaseSetupCommand(name)).toThrow(TypeError);
  });
});

describe("a suite's review_cases corpus and a task's review_case", () => {
  const REVIEW_TASK = {
    id: "review-split",
    class: "review-defect",
    repo: "repos/ledger",
    prompt: "Review the local change.",
    verify: 'test -s "$GITNEXUS_BENCH_REVIEW_OUTPUT"',
    review_case: "pr-12-defect",
    oracle: { command: 'test -s "$GITNEXUS_BENCH_REVIEW_OUTPUT"', files: [{ source: "demo/split.review.labels.json", target: "review-labels.json" }] },
  };
  /** A harness checkout with the corpus at eval/workflow_bench/review_cases and a suite file beside it. */
  function suite(task: Record<string, unknown>, top: Record<string, unknown> = { review_cases: "eval/workflow_bench/review_cases" }, patch = PATCH): string {
    const root = mkdtempSync(join(tmpdir(), "wfbench-corpus-suite-"));
    dirs.push(root);
    mkdirSync(join(root, "eval/workflow_bench/review_cases"), { recursive: true });
    writeFileSync(join(root, "eval/workflow_bench/review_cases/manifest.json"), JSON.stringify(manifest()));
    writeFileSync(join(root, "eval/workflow_bench/review_cases/pr-12-defect.patch"), patch);
    writeFileSync(join(root, "suite.yaml"), stringify({ ...top, tasks: [task] }));
    return root;
  }

  it("copies the case's patch from the corpus's harness root and applies it with the generated setup", async () => {
    const root = suite(REVIEW_TASK);
    const result = await loadTaskSuite(join(root, "suite.yaml"));
    expect(result.ok, JSON.stringify(!result.ok && result.error)).toBe(true);
    if (!result.ok) return;
    expect(result.value.tasks[0]).toMatchObject({
      sandboxCopy: ["eval/workflow_bench/review_cases/pr-12-defect.patch"],
      setup: reviewCaseSetupCommand("pr-12-defect.patch"),
      harnessRoot: root,
    });
  });

  it("refuses the suite when a case's patch drifted, naming the corpus field", async () => {
    const result = await loadTaskSuite(join(suite(REVIEW_TASK, undefined, `${PATCH}+x\n`), "suite.yaml"));
    expect(!result.ok && result.error.field).toBe("review_cases: cases[0].patch_sha256");
    expect(!result.ok && result.error.message).toContain("restore the patch or record its new digest");
  });

  it.each([
    ["an unknown case", { ...REVIEW_TASK, review_case: "pr-99" }, undefined, "review_case"],
    ["a case without a corpus", REVIEW_TASK, {}, "review_case"],
    ["a hand-written setup beside the case", { ...REVIEW_TASK, setup: "true" }, undefined, "setup"],
    ["a sandbox_copy beside the case", { ...REVIEW_TASK, sandbox_copy: ["x"] }, undefined, "sandbox_copy"],
    ["a case on an implementation task", { ...REVIEW_TASK, oracle: { command: "true", files: [{ source: "demo/x.test.mjs", target: "x.test.mjs" }] } }, undefined, "review_case"],
    ["a corpus not under eval/workflow_bench/review_cases", REVIEW_TASK, { review_cases: "eval/workflow_bench" }, "review_cases"],
  ])("refuses %s", async (_name, task, top, field) => {
    const result = await loadTaskSuite(join(suite(task, top), "suite.yaml"));
    expect(!result.ok && result.error.field).toBe(field);
  });
});
