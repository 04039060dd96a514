// Median start-to-exit of /bin/true through runSandboxed versus raw bwrap with the same namespaces and mounts.
// Run: npx tsx packages/sandbox-bwrap/bench/bench-sandbox.ts [iterations]   (or: npx nx run sandbox-bwrap:bench)
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { buildBwrapArgv } from "../src/build-argv.js";
import { runSandboxed } from "../src/run-sandboxed.js";

const iterations = Number(process.argv[2] ?? "60");
const policy = { env: { PATH: "/usr/bin:/bin" } };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

// Raw: the same options on bwrap's command line, no seccomp fd, no status fd, no supervision.
const rawArgs = buildBwrapArgv(policy).slice(0, -4);
function runRaw(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("/usr/bin/bwrap", [...rawArgs, "--", "/bin/true"], { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`raw bwrap exited ${code}`))));
  });
}
async function runWrapped(): Promise<number> {
  const started = performance.now();
  const result = await runSandboxed(policy, ["/bin/true"], { timeoutMs: 10_000 });
  if (!result.ok) throw new Error(`runSandboxed ended ${result.state}: ${result.stderrTail}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await runRaw();
    await runWrapped();
  }
  const raw: number[] = [];
  const wrapped: number[] = [];
  // Interleave so drift in machine load hits both series alike.
  for (let i = 0; i < iterations; i += 1) {
    raw.push(await runRaw());
    wrapped.push(await runWrapped());
  }
  const rawMedian = median(raw);
  const wrappedMedian = median(wrapped);
  const figures = {
    iterations,
    rawBwrapMedianMs: Number(rawMedian.toFixed(2)),
    runSandboxedMedianMs: Number(wrappedMedian.toFixed(2)),
    ratio: Number((wrappedMedian / rawMedian).toFixed(2)),
    goal: { maxRatio: 3, maxMs: 20 },
    meetsGoal: wrappedMedian <= 3 * rawMedian && wrappedMedian <= 20,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
