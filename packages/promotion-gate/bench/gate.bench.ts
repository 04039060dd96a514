// Times aggregate + both gates on synthetic rows: the 6 tasks × 3 arms × 3 runs shape, and 10,000 rows.
import { performance } from "node:perf_hooks";
import { aggregateByTaskArm, buildCandidatePolicy, buildPromotionEvidence, type GateRow } from "../src/index.js";

function makeRows(tasks: number, runs: number): GateRow[] {
  const arms = ["workflow", "candidate_workflow", "review", "candidate_review"] as const;
  const rows: GateRow[] = [];
  let seed = 7;
  const next = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let task = 0; task < tasks; task += 1) {
    for (const arm of arms) {
      for (let run = 0; run < runs; run += 1) {
        const review = arm.includes("review");
        rows.push({
          task: `task-${task}`,
          arm,
          class: review ? "review-defect" : "trivial",
          error_kind: next() < 0.05 ? "verify-failed" : null,
          resolved: next() < 0.8,
          cost_usd: Math.round(next() * 10000) / 10000,
          output_tokens: Math.floor(next() * 5000),
          duration_s: Math.round(next() * 6000) / 10,
          num_turns: Math.floor(next() * 40),
          ...(review
            ? { review_weighted_f1: next(), review_blocker_recall: 1, review_false_positives: 0, review_verdict_correct: true, review_clean_control: false, review_clean_pass: false }
            : {}),
        });
      }
    }
  }
  return rows;
}

const policy = { candidate_workflow: buildCandidatePolicy("candidate_workflow"), candidate_review: buildCandidatePolicy("candidate_review") };

function measure(label: string, rows: GateRow[], iterations: number): void {
  for (let i = 0; i < 5; i += 1) buildPromotionEvidence({ results: aggregateByTaskArm(rows), policy, model: "m", complete: true });
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    buildPromotionEvidence({ results: aggregateByTaskArm(rows), policy, model: "m", complete: true });
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  const p95 = samples[Math.floor(samples.length * 0.95)] ?? 0;
  process.stdout.write(`${label}: ${rows.length} rows, median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms over ${iterations} runs\n`);
}

measure("6 tasks x 3 runs (4 arms)", makeRows(6, 3), 200);
measure("10,000 rows (50 tasks x 4 arms x 50 runs)", makeRows(50, 50), 30);
