// Benchmark: capture + digest of the largest typical oracle (8 files × 256 KiB). Run: `nx run oracle-snapshot:bench`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
// Direct module imports: the index also loads the bwrap adapter, whose sibling package is not built for tsx.
import { captureOracle } from "../src/capture-oracle.js";
import { computeOracleDigests } from "../src/compute-oracle-digests.js";

const FILES = 8;
const SIZE = 256 * 1024;
const ROUNDS = 60;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "oracle-bench-"));
  try {
    const files = [];
    for (let index = 0; index < FILES; index += 1) {
      await writeFile(join(root, `f${index}.oracle.test.ts`), randomBytes(SIZE));
      files.push({ source: `f${index}.oracle.test.ts`, target: `f${index}.oracle.test.ts` });
    }
    const declaration = { command: "cd gitnexus && ./node_modules/.bin/vitest run", files };
    const captureTimes: number[] = [];
    const digestTimes: number[] = [];
    for (let round = 0; round < ROUNDS + 5; round += 1) {
      const start = performance.now();
      const result = await captureOracle(declaration, root);
      const captured = performance.now();
      if (!result.ok) throw new Error(result.error.message);
      const payloads = result.value.files.map((file) => ({ target: file.target, payload: result.value.readFile(file.target) }));
      const digestStart = performance.now();
      computeOracleDigests(declaration.command, payloads);
      const digested = performance.now();
      // The first rounds warm the page cache and the JIT.
      if (round >= 5) {
        captureTimes.push(captured - start);
        digestTimes.push(digested - digestStart);
      }
    }
    const megabytes = (FILES * SIZE) / (1024 * 1024);
    const captureMedian = median(captureTimes);
    process.stdout.write(
      [
        `oracle capture+digest, ${FILES} x ${SIZE / 1024} KiB (${megabytes} MiB), ${ROUNDS} rounds, load avg ${loadavg()[0]?.toFixed(1) ?? "?"}`,
        `  captureOracle (read + checks + digests): median ${captureMedian.toFixed(2)} ms, p95 ${percentile(captureTimes, 0.95).toFixed(2)} ms, ${(megabytes / (captureMedian / 1000)).toFixed(0)} MiB/s`,
        `  computeOracleDigests alone:              median ${median(digestTimes).toFixed(2)} ms`,
        "",
      ].join("\n"),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
