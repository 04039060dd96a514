// The review profile of the offline evolve loop end to end through the real CLI (`wfbench evolve --arms review`, the
// fixture Compound Engineering plugin as the comparator): the scripted proposer's review profile writes the review-v2
// bytes, the sweep measures ce_review, review and candidate_review on the review half of the demo, the review gate
// promotes on the one case where the fixture model's incumbent misses a defect, and --apply writes demo-review only.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, commitIncumbentSkills, runEvolve, type EvolveOutcome } from "./support/evolve-process.js";

const REVIEW_SKILL = ".claude/skills/demo-review/SKILL.md";
const WORK_SKILL = ".claude/skills/demo-work/SKILL.md";
const SUITE = join(REPO_ROOT, "tasks/demo-review.yaml");
const PLUGIN = join(REPO_ROOT, "packages/plugin-snapshot/fixtures/compound-engineering");
const PLUGIN_VERSION = "3.23.1";
const SCRIPT = "apps/evolve/test/fixtures/review-profile/scripted-model.yaml";
const scratch = mkdtempSync(join(tmpdir(), "evolve-review-int-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bytes = (overlay: string, file: string): Buffer => readFileSync(join(REPO_ROOT, "tasks/demo/overlays", overlay, file));

interface Row {
  readonly task: string;
  readonly arm: string;
  readonly run: number;
  readonly review_weighted_f1: number | null;
  readonly skill_digest: string | null;
}

it("runs tasks/demo-review.yaml, which is tasks/demo.yaml's review corpus and review tasks verbatim", () => {
  const demo = readFileSync(join(REPO_ROOT, "tasks/demo.yaml"), "utf8");
  const half = readFileSync(SUITE, "utf8");
  const corpus = demo.slice(demo.indexOf("# The review-case corpus"), demo.indexOf("skills:\n"));
  const skills = demo.slice(demo.indexOf("skills:\n"), demo.indexOf("tasks:\n") + "tasks:\n".length);
  expect(half.slice(half.indexOf("# The review-case corpus"))).toBe(corpus + skills + demo.slice(demo.indexOf("  - id: demo-review-")));
});

describe("wfbench evolve --arms review against the fixture CE plugin, proposer path", () => {
  let root: string;
  let out: string;
  let result: EvolveOutcome;
  let workBefore: Buffer;
  beforeAll(async () => {
    root = commitIncumbentSkills(join(scratch, "root"));
    workBefore = readFileSync(join(root, WORK_SKILL));
    out = join(scratch, "out");
    result = await runEvolve(
      ["--tasks", SUITE, "--arms", "review", "--proposer-script", "tasks/demo/scripted-proposer.yaml", "--ce-plugin-dir", PLUGIN, "--ce-plugin-version", PLUGIN_VERSION, "--runs", "3", "--workers", "2", "--apply", "--repo-root", root, "--out-root", out],
      { script: SCRIPT },
    );
  }, 1_500_000);

  it("writes the review-v2 bytes through the proposer's review profile", () => {
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
    expect(readFileSync(join(out, "gen-0/proposer/overlay", REVIEW_SKILL)).equals(bytes("review-v2", REVIEW_SKILL))).toBe(true);
  });

  it("measures ce_review, review and candidate_review on every review task and run, the comparator first", () => {
    const rows = readFileSync(join(out, "gen-0/bench/results.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Row);
    const tasks = ["demo-review-median", "demo-review-split", "demo-review-variance"];
    expect(rows.map((row) => `${row.task}/${String(row.run)}/${row.arm}`)).toEqual(tasks.flatMap((task) => [0, 1, 2].flatMap((run) => ["ce_review", "review", "candidate_review"].map((arm) => `${task}/${String(run)}/${arm}`))));
    // The host-scored quality the decision rests on: the incumbent misses split's medium defect, the candidate does not.
    const f1 = (task: string, arm: string): (number | null)[] => rows.filter((row) => row.task === task && row.arm === arm).map((row) => row.review_weighted_f1);
    expect(f1("demo-review-split", "candidate_review")).toEqual([1, 1, 1]);
    expect(f1("demo-review-split", "ce_review")).toEqual([1, 1, 1]);
    const incumbent = f1("demo-review-split", "review");
    expect(incumbent.every((value) => value !== null && value < 0.99)).toBe(true);
    expect(f1("demo-review-median", "review")).toEqual(f1("demo-review-median", "candidate_review"));
  });

  it("records the review decision with the plugin's provenance, and the CE comparison in the report", () => {
    const promotion = JSON.parse(readFileSync(join(out, "gen-0/bench/promotion.json"), "utf8")) as Record<string, unknown> & { selected_tasks: { id: string }[]; decisions: { candidate_arm: string; decision: string; reasons: string[] }[] };
    expect(promotion).toMatchObject({ candidate_origin: "model-proposer", required_candidate_arms: ["candidate_review"] });
    expect(promotion.selected_tasks.map((task) => task.id)).toEqual(["demo-review-median", "demo-review-split", "demo-review-variance"]);
    expect(promotion["ce_plugin"]).toMatchObject({ name: "compound-engineering", version: PLUGIN_VERSION });
    expect(promotion.decisions.map((d) => [d.candidate_arm, d.decision])).toEqual([["candidate_review", "promote"]]);
    expect(promotion.decisions[0]?.reasons[0]).toMatch(/^demo-review-split: weighted review score improved from 0\.\d+ to 1\.000$/u);
    const stats = JSON.parse(readFileSync(join(out, "gen-0/bench/report-stats.json"), "utf8")) as { comparisons: { arm: string; reference: string; task: string | null }[] };
    const pairs = stats.comparisons.filter((c) => c.task === null).map((c) => `${c.arm}~${c.reference}`);
    expect(pairs).toEqual(expect.arrayContaining(["review~ce_review", "candidate_review~review", "candidate_review~ce_review"]));
  });

  it("records one runtime digest for the loop, the one every row carries, and the review profile's provenance", () => {
    const provenance = JSON.parse(readFileSync(join(out, "runtime-provenance.json"), "utf8")) as Record<string, unknown>;
    const head = spawnSync("git", ["-C", REPO_ROOT, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(provenance).toMatchObject({ schema_version: 1, profile: "review", ce_plugin_version: PLUGIN_VERSION, sandbox_backend: "bwrap", source_sha: head, claude_cli_version: expect.stringMatching(/^\d+\.\d+\.\d+/u) });
    expect(provenance["runtime_digest"]).toMatch(/^[0-9a-f]{64}$/u);
    const rows = readFileSync(join(out, "gen-0/bench/results.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { runtime_digest: string | null });
    expect(new Set(rows.map((row) => row.runtime_digest))).toEqual(new Set([provenance["runtime_digest"]]));
  });

  it("promotes and applies demo-review's new bytes only, leaving the implementation skills as committed", () => {
    expect(result.stdout).toMatch(/candidate_review: promote \(demo-review-split: weighted review score improved/u);
    expect(result.stdout).toMatch(/PROMOTED: generation 0/u);
    expect(result.stdout).toContain(`  ${REVIEW_SKILL}\n`);
    expect(readFileSync(join(root, REVIEW_SKILL)).equals(bytes("review-v2", REVIEW_SKILL))).toBe(true);
    expect(readFileSync(join(root, WORK_SKILL)).equals(workBefore)).toBe(true);
  });
});
