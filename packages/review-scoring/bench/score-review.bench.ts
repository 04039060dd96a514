// Times scoreReview on a dense 100 findings x 100 labels case (every pair eligible) and a sparse one.
// Run: npx tsx bench/score-review.bench.ts   (or: npx nx run review-scoring:bench). Goal: <= 10 ms each.
import { performance } from "node:perf_hooks";
import type { Severity } from "../src/constants.js";
import type { ReviewFinding, ReviewLabel } from "../src/schema.js";
import { scoreReview } from "../src/score-review.js";

const SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];

function finding(i: number, path: string, line: number, endLine: number): ReviewFinding {
  return {
    id: `finding-${String(i).padStart(3, "0")}`, severity: SEVERITIES[i % 4] as Severity, path, line, end_line: endLine,
    category: `c${i % 6}`, scenario: "scenario", evidence: "evidence", recommendation: "recommendation", blocking: i % 4 < 2,
  };
}

function label(i: number, path: string, start: number, end: number): ReviewLabel {
  return { id: `label-${String(i).padStart(3, "0")}`, severity: SEVERITIES[(i * 3) % 4] as Severity, path, line_start: start, line_end: end, category: `c${i % 5}` };
}

const dense = {
  findings: Array.from({ length: 100 }, (_, i) => finding(i, "src/app.ts", 1, 1000)),
  labels: Array.from({ length: 100 }, (_, i) => label(i, "src/app.ts", 1 + i * 5, 3 + i * 5)),
};
const sparse = {
  findings: Array.from({ length: 100 }, (_, i) => finding(i, `src/f${i % 20}.ts`, 1 + (i % 7) * 40, 5 + (i % 7) * 40)),
  labels: Array.from({ length: 100 }, (_, i) => label(i, `src/f${i % 25}.ts`, 3 + (i % 9) * 30, 6 + (i % 9) * 30)),
};

function measure(name: string, input: { findings: ReviewFinding[]; labels: ReviewLabel[] }): void {
  for (let i = 0; i < 20; i++) scoreReview("request_changes", input.findings, input.labels);
  const samples: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    scoreReview("request_changes", input.findings, input.labels);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const score = scoreReview("request_changes", input.findings, input.labels);
  const pick = (q: number) => (samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] as number).toFixed(3);
  process.stdout.write(
    `${name}: median ${pick(0.5)} ms, p95 ${pick(0.95)} ms, max ${pick(1)} ms (tp=${score.true_positives}, fp=${score.false_positives}, fn=${score.false_negatives})\n`,
  );
}

measure("dense 100x100 (all eligible)", dense);
measure("sparse 100x100", sparse);
