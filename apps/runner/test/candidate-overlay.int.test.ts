// Incumbent + candidate arms through the real runner (real Claude Code CLI, bwrap, git, the scripted demo model): the
// demo work-v2 overlay replaces demo-work's SKILL.md in candidate cells only, rows carry its digest, and the sweep
// writes a schema-6 promotion.json whose decisions promotion-gate recomputes from results.jsonl.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { listSuiteSkills } from "@wfbench/cell-pipeline";
import {
  ImplementationPolicySchema,
  PromotionSchema,
  aggregateByTaskArm,
  applyPromotedOverlay,
  buildCandidatePolicy,
  computeOverlayDigest,
  evaluateImplementationCandidate,
  evaluateReviewCandidate,
  ReviewPolicySchema,
  parseResultRows,
} from "@wfbench/promotion-gate";
import { loadTaskSuite } from "@wfbench/task-suite";
import { REPO_ROOT, probeRunnerTools, readResultRows, runRunner } from "./support/runner-harness.js";

const OVERLAY = join(REPO_ROOT, "tasks/demo/overlays/work-v2");
const OVERLAY_FILE = ".claude/skills/demo-work/SKILL.md";
const tools = await probeRunnerTools(import.meta.url);

interface Row {
  [key: string]: unknown;
  arm: string;
  run: number;
}
interface ScriptTurn {
  usage: { input_tokens: number; output_tokens: number };
}

/** The script's output-token total over named trajectories: what a cell that played them must report. */
function scriptOutputTokens(names: string[]): number {
  const script = parse(readFileSync(join(REPO_ROOT, "tasks/demo/scripted-model.yaml"), "utf8")) as { trajectories: { name: string; turns: ScriptTurn[] }[] };
  const found = script.trajectories.filter((t) => names.includes(t.name));
  expect(found.map((t) => t.name).sort()).toEqual([...names].sort());
  return found.flatMap((t) => t.turns).reduce((n, t) => n + t.usage.output_tokens, 0);
}

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfbench-candidate-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function overlayWith(files: Record<string, string>): string {
  const root = join(scratch(), "overlay");
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe("--candidate-overlay refusals (before any paid work, exit 2)", () => {
  it.skipIf(tools.skip).each<[string, () => string[], RegExp]>([
    ["a non-Markdown overlay file", () => ["--candidate-overlay", overlayWith({ ".claude/skills/demo-work/run.sh": "echo" })], /\.claude\/skills\/demo-work\/run\.sh: rule not-markdown/],
    ["a skill the suite does not evaluate", () => ["--candidate-overlay", overlayWith({ ".claude/skills/gitnexus-work/SKILL.md": "x" })], /\.claude\/skills\/gitnexus-work\/SKILL\.md: rule unknown-skill/],
    ["an empty overlay", () => ["--candidate-overlay", overlayWith({})], /\(overlay root\): rule no-files/],
    ["an overlay identical to the incumbent skill", () => ["--candidate-overlay", overlayWith({ [OVERLAY_FILE]: readFileSync(join(REPO_ROOT, "tasks/demo/repos/mathlib", OVERLAY_FILE), "utf8") })], /byte-identical to the incumbent skills/],
    ["--arms that are not exactly the overlay's pairs", () => ["--candidate-overlay", OVERLAY, "--arms", "workflow_direct", "candidate_workflow_direct"], /must be exactly: workflow candidate_workflow workflow_direct candidate_workflow_direct/],
    ["a candidate arm without an overlay", () => ["--arms", "workflow_direct", "candidate_workflow_direct"], /need --candidate-overlay/],
  ])("refuses %s", async (_name, args, message) => {
    const out = join(scratch(), "out");
    const result = await runRunner(["--out", out, ...args()]);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(existsSync(join(out, "results.jsonl"))).toBe(false);
  });
});

describe("candidate arms through the real CLI", () => {
  it.skipIf(tools.skip)(
    "runs incumbent + candidate arms, stamps the overlay digest and writes a promotion.json the gate recomputes",
    async () => {
      const out = join(scratch(), "out");
      const result = await runRunner(["--out", out, "--candidate-overlay", OVERLAY, "--repeats", "2", "--promotion-min-runs", "2", "--workers", "2"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);

      const overlayDigest = computeOverlayDigest([{ path: OVERLAY_FILE, bytes: readFileSync(join(OVERLAY, OVERLAY_FILE)) }]);
      const allRows = readResultRows<Row>(out);
      const arms = ["workflow", "candidate_workflow", "workflow_direct", "candidate_workflow_direct"];
      const tasks = ["demo-clamp", "demo-ledger-rounding", "demo-ledger-currency"];
      expect([...new Set(allRows.map((r) => r.arm))].sort()).toEqual([...arms].sort());
      // The demo's three implementation tasks carry the overlay's pairs; its review tasks have none.
      expect(allRows).toHaveLength(24);
      // Two workers finish cells out of order; the log still holds them in canonical (task, run, arm) order.
      expect(allRows.map((r) => `${String(r["task"])}/${String(r["run"])}/${r.arm}`)).toEqual(tasks.flatMap((task) => [0, 1].flatMap((run) => arms.map((arm) => `${task}/${run}/${arm}`))));
      // Per-row checks on demo-clamp, where every arm resolves; the demo's other outcomes are pinned in demo-suite.int.test.ts.
      const rows = allRows.filter((r) => r["task"] === "demo-clamp");
      for (const row of allRows) expect(row["candidate_overlay_digest"], row.arm).toBe(row.arm.startsWith("candidate_") ? overlayDigest : null);
      const expectedOutput: Record<string, number> = {
        workflow: scriptOutputTokens(["demo-clamp-workflow-plan", "demo-clamp-workflow-work"]),
        candidate_workflow: scriptOutputTokens(["demo-clamp-candidate-workflow-plan", "demo-clamp-candidate-workflow-work"]),
        workflow_direct: scriptOutputTokens(["demo-clamp-workflow-direct"]),
        candidate_workflow_direct: scriptOutputTokens(["demo-clamp-candidate-workflow-direct"]),
      };
      for (const row of rows) {
        const candidate = row.arm.startsWith("candidate_");
        expect(row["candidate_overlay_digest"], row.arm).toBe(candidate ? overlayDigest : null);
        // Skill proof: the parent-captured stream shows the evaluated skill was invoked, and it was left untouched.
        expect(row["skill_invoked"], row.arm).toBe(true);
        expect(row["resolved"], row.arm).toBe(true);
        expect(row["error_kind"], row.arm).toBeNull();
        // The scripted model played the candidate trajectory only where the overlay's text reached the model.
        expect(row["output_tokens"], row.arm).toBe(expectedOutput[row.arm]);
      }
      const first = (arm: string): Row => rows.find((r) => r.arm === arm) as Row;
      // demo-work holds exactly the overlay's one file in a candidate cell, so its fingerprint is the overlay digest.
      expect(first("candidate_workflow_direct")["skill_digest"]).toBe(overlayDigest);
      expect(first("workflow_direct")["skill_digest"]).not.toBe(overlayDigest);
      // The overlay is committed on top of the sanitized head: a different diff base, the same task base.
      expect(first("candidate_workflow_direct")["variant_head_sha"]).not.toBe(first("workflow_direct")["variant_head_sha"]);
      expect(first("candidate_workflow_direct")["sanitized_task_sha"]).toBe(first("workflow_direct")["sanitized_task_sha"]);
      expect(readFileSync(join(out, "demo-clamp-candidate_workflow_direct-run0.patch"), "utf8")).not.toContain(".claude/skills");

      const promotion = PromotionSchema.parse(JSON.parse(readFileSync(join(out, "promotion.json"), "utf8")));
      expect(promotion.schema_version).toBe(6);
      expect(promotion.run_status).toBe("complete");
      expect(promotion.candidate_overlay).toBe(OVERLAY);
      expect(promotion.candidate_overlay_digest).toBe(overlayDigest);
      expect(promotion.required_candidate_arms).toEqual(["candidate_workflow", "candidate_workflow_direct"]);
      expect(Object.keys(promotion.target_base_digests)).toEqual([OVERLAY_FILE]);
      expect(promotion.selected_tasks.map((t) => t.id)).toEqual([...tasks, "demo-review-median", "demo-review-split", "demo-review-variance"]);

      const parsed = parseResultRows(readResultRows<unknown>(out));
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      const results = aggregateByTaskArm(parsed.value);
      for (const [candidateArm, incumbentArm] of [
        ["candidate_workflow", "workflow"],
        ["candidate_workflow_direct", "workflow_direct"],
      ] as const) {
        const policy = ImplementationPolicySchema.parse(buildCandidatePolicy(candidateArm, { minRuns: 2 }));
        expect(promotion.policy[candidateArm]).toEqual(policy);
        const recomputed = evaluateImplementationCandidate({ results, incumbentArm, candidateArm, policy, model: "claude-sonnet-4-5" });
        const written = promotion.decisions.find((d) => d.candidate_arm === candidateArm);
        expect(written?.decision).toBe(recomputed.decision);
        expect(written).toEqual(JSON.parse(JSON.stringify(recomputed)));
        // v2 resolves every run its incumbent does and more (its direct session loads the skill the incumbent skips).
        expect(recomputed.decision).toBe("promote");
      }
      const report = readFileSync(join(out, "report.md"), "utf8");
      expect(report).toContain("## Promotion");
      expect(report).toContain("`candidate_workflow_direct` vs `workflow_direct`: **promote**");
      expect(result.stdout).toContain("candidate_workflow_direct: promote");

      // Regression: the measured and promoted demo overlay is then accepted at apply time, with the digest and target
      // bases the sweep bound. applyPromotedOverlay knew only the gitnexus-* skills and required the gitnexus mirrors,
      // so it refused demo-work; it now takes the suite's skills and the same path rule as the read above.
      const suite = await loadTaskSuite(join(REPO_ROOT, "tasks/demo.yaml"), { homeDir: null });
      if (!suite.ok) throw new Error(suite.error.message);
      const repo = join(scratch(), "repo");
      cpSync(join(REPO_ROOT, "tasks/demo/repos/mathlib"), repo, { recursive: true });
      const applied = applyPromotedOverlay({
        repoRoot: realpathSync(repo),
        files: [{ path: OVERLAY_FILE, bytes: readFileSync(join(OVERLAY, OVERLAY_FILE)) }],
        skills: listSuiteSkills(suite.value.skills),
        expectedOverlayDigest: overlayDigest,
        expectedTargetBases: promotion.target_base_digests,
        now: new Date(),
      });
      expect(applied).toEqual({ ok: true, value: { written: [OVERLAY_FILE] } });
      expect(readFileSync(join(repo, OVERLAY_FILE))).toEqual(readFileSync(join(OVERLAY, OVERLAY_FILE)));
    },
    300_000,
  );

  it.skipIf(tools.skip)(
    "runs review + candidate_review on the review task; one repeat is honestly insufficient_evidence",
    async () => {
      const overlay = join(REPO_ROOT, "tasks/demo/overlays/review-v2");
      const out = join(scratch(), "out");
      const result = await runRunner(["--out", out, "--candidate-overlay", overlay]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const file = ".claude/skills/demo-review/SKILL.md";
      const digest = computeOverlayDigest([{ path: file, bytes: readFileSync(join(overlay, file)) }]);
      const rows = readResultRows<Row>(out);
      // Every demo review case runs both arms; v2 has its own session on demo-review-median only.
      expect(rows.map((r) => `${String(r["task"])}/${r.arm}`)).toEqual(["demo-review-median", "demo-review-split", "demo-review-variance"].flatMap((task) => [`${task}/review`, `${task}/candidate_review`]));
      for (const row of rows) {
        expect(row["candidate_overlay_digest"], row.arm).toBe(row.arm === "candidate_review" ? digest : null);
        expect(row["skill_invoked"], row.arm).toBe(true);
        // The clean control has no labels, so no weighted F1: its score is the false-positive count.
        expect(row["review_weighted_f1"], row.arm).toBe(row["task"] === "demo-review-variance" ? null : 1);
        expect(row["review_false_positives"], row.arm).toBe(0);
      }
      expect(rows[1]?.["output_tokens"]).toBe(scriptOutputTokens(["demo-review-median-candidate"]));
      expect(rows[1]?.["skill_digest"]).toBe(digest);
      const promotion = PromotionSchema.parse(JSON.parse(readFileSync(join(out, "promotion.json"), "utf8")));
      expect(promotion.required_candidate_arms).toEqual(["candidate_review"]);
      const parsed = parseResultRows(readResultRows<unknown>(out));
      if (!parsed.ok) throw new Error(parsed.error.message);
      const policy = ReviewPolicySchema.parse(buildCandidatePolicy("candidate_review"));
      const recomputed = evaluateReviewCandidate({ results: aggregateByTaskArm(parsed.value), incumbentArm: "review", policy, model: "claude-sonnet-4-5" });
      expect(promotion.decisions).toEqual([JSON.parse(JSON.stringify(recomputed))]);
      expect(recomputed.decision).toBe("insufficient_evidence");
      expect(readFileSync(join(out, "report.md"), "utf8")).toContain("`candidate_review` vs `review`: **insufficient_evidence**");
    },
    180_000,
  );
});
