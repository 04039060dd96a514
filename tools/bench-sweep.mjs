// Benchmark of the sweep's scheduler and per-cell harness cost (not a test; issue 14's goals: --workers 3 ≤ 0.40 ×
// --workers 1 wall time, harness overhead per cell ≤ 0.3 s). Runs the embedded demo suite through the real runner
// twice, side by side in one invocation, with every scripted turn delayed (default 400 ms) so model time dominates as
// it would upstream. Prints the wall-time ratio and, from the rows' timings_ms, the median per-cell time outside the
// CLI sessions (total − Σ session_N) and the harness's own part of it (less the task's setup, verify and oracle
// commands, `task_commands`). --keep leaves the scratch directory (rows, reports) and prints its path.
// --built runs the built CLI (apps/runner/dist, `npx nx run runner:build` first) as an installed `wfbench` does, instead
// of the TypeScript source through tsx, whose transpiling and larger heap count in both runs.
// --pairs N repeats the side-by-side pair N times, alternating, and also prints each pair's ratio and their median: this
// machine's speed drifts within minutes, so one pair can mislead.
// It also prints the CPU the machine spent during each run (every core's busy time in /proc/stat, so anything else
// running counts too) and what that CPU bounds: no scheduler can finish the parallel run faster than its CPU-seconds
// over the core count, so that over the serial wall time is the least ratio this machine allows.
// Usage: node tools/bench-sweep.mjs [--delay-ms 400] [--repeats 3] [--workers 3] [--pairs 1] [--built] [--keep]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`bench-sweep: ${name} needs a whole number, got ${JSON.stringify(argv[at + 1] ?? "")}\n`);
    process.exit(2);
  }
  return value;
};
const delayMs = flag("--delay-ms", 400);
const repeats = flag("--repeats", 3);
const workers = flag("--workers", 3);
const pairs = Math.max(1, flag("--pairs", 1));
const built = argv.includes("--built");
if (built && !existsSync(join(ROOT, "apps/runner/dist/cli.js"))) {
  process.stderr.write("bench-sweep: --built needs apps/runner/dist/cli.js: run `npx nx run runner:build` first\n");
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), "wfbench-bench-sweep-"));
const script = parse(readFileSync(join(ROOT, "tasks/demo/scripted-model.yaml"), "utf8"));
for (const trajectory of script.trajectories) for (const turn of trajectory.turns) turn.delay_ms = delayMs;
const scriptPath = join(scratch, "scripted-model.yaml");
writeFileSync(scriptPath, stringify(script));

/** Busy CPU-seconds of every core since boot (user, nice, system, irq, softirq, steal), from /proc/stat; null off Linux. */
function busyCpuSeconds() {
  if (!existsSync("/proc/stat")) return null;
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/u).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  // USER_HZ is 100 on every Linux ABI node runs on (sysconf(_SC_CLK_TCK)).
  return (user + nice + system + irq + softirq + (steal ?? 0)) / 100;
}

function runSweep(n, label, pair = 0) {
  // One directory per run, named by its role: `--workers 1` must not make both runs share one --out.
  const out = join(scratch, `${label}-${pair}`);
  const args = [join(ROOT, "apps/runner/bin/wfbench.mjs"), "run", "--tasks", join(ROOT, "tasks/demo.yaml"), "--script", scriptPath, "--repeats", String(repeats), "--workers", String(n), "--out", out];
  const started = process.hrtime.bigint();
  const loadBefore = loadavg()[0];
  const cpuBefore = busyCpuSeconds();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...(built ? {} : { WFBENCH_FROM_SOURCE: "1" }) } });
    let stderr = "";
    // Start-up (tsx, templates, the MCP build, the canary) counts once per sweep whatever --workers is: said apart.
    let startupS = null;
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      if (startupS !== null) return;
      stdout += chunk;
      if (/starting \(1\//u.test(stdout)) startupS = Number(process.hrtime.bigint() - started) / 1e9;
    });
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => {
      const wallS = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return fail(new Error(`--workers ${n} exited ${code}: ${stderr.slice(-2000)}`));
      const rows = readFileSync(join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
      const cpuAfter = busyCpuSeconds();
      done({ wallS, startupS, rows, load: [loadBefore, loadavg()[0]], cpuS: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore });
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? null : sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** Per cell: everything the row's timings record outside its CLI sessions. */
const overheads = (rows) =>
  rows
    .filter((row) => row.timings_ms && typeof row.timings_ms.total === "number")
    .map((row) => row.timings_ms.total - Object.entries(row.timings_ms).filter(([key]) => /^session_\d+$/u.test(key)).reduce((sum, [, ms]) => sum + ms, 0));
/** Per cell: the harness's own time, outside the sessions and outside the task's own commands (`task_commands`). */
const ownOverheads = (rows) => {
  const split = rows.filter((row) => typeof row.timings_ms?.task_commands === "number" && typeof row.timings_ms.total === "number");
  return overheads(split).map((outside, i) => outside - split[i].timings_ms.task_commands);
};
/** Median of each non-session phase over the rows, largest first: where the overhead goes. */
const phases = (rows) => {
  const byPhase = new Map();
  for (const row of rows) for (const [key, ms] of Object.entries(row.timings_ms ?? {})) if (!/^session_\d+$/u.test(key) && key !== "total") byPhase.set(key, [...(byPhase.get(key) ?? []), ms]);
  return [...byPhase].map(([key, values]) => [key, median(values)]).sort((a, b) => b[1] - a[1]);
};
const fmt = (ms) => (ms === null ? "n/a" : `${(ms / 1000).toFixed(2)} s`);

try {
  const ratios = [];
  let one;
  let many;
  for (let pair = 0; pair < pairs; pair += 1) {
    one = await runSweep(1, "serial", pair);
    many = await runSweep(workers, "parallel", pair);
    ratios.push([many.wallS / one.wallS, (many.wallS - many.startupS) / (one.wallS - one.startupS), one.wallS, many.wallS, many.cpuS === null ? null : many.cpuS / cpus().length / one.wallS]);
    if (pairs > 1) process.stdout.write(`pair ${pair + 1}/${pairs}: --workers 1 ${one.wallS.toFixed(1)} s, --workers ${workers} ${many.wallS.toFixed(1)} s, ratio ${ratios[pair][0].toFixed(3)}, after start-up ${ratios[pair][1].toFixed(3)}${ratios[pair][4] === null ? "" : `, CPU-bound least ${ratios[pair][4].toFixed(3)}`}\n`);
  }
  const ratio = many.wallS / one.wallS;
  const lines = [
    `bench-sweep: demo suite, ${one.rows.length} cells (--repeats ${repeats}), ${delayMs} ms per scripted turn, ${built ? "built CLI (dist)" : "source through tsx"}`,
    `| workers | wall s | cells | median outside sessions/cell (total − Σ session_N) | median harness's own/cell (− task_commands) | 1-min load before → after | CPU-s busy (all cores) |`,
    `|---|---|---|---|---|---|---|`,
    `| 1 | ${one.wallS.toFixed(1)} | ${one.rows.length} | ${fmt(median(overheads(one.rows)))} | ${fmt(median(ownOverheads(one.rows)))} | ${one.load.map((l) => l.toFixed(1)).join(" → ")} | ${one.cpuS?.toFixed(1) ?? "n/a"} |`,
    `| ${workers} | ${many.wallS.toFixed(1)} | ${many.rows.length} | ${fmt(median(overheads(many.rows)))} | ${fmt(median(ownOverheads(many.rows)))} | ${many.load.map((l) => l.toFixed(1)).join(" → ")} | ${many.cpuS?.toFixed(1) ?? "n/a"} |`,
    `ratio workers ${workers} / workers 1: ${ratio.toFixed(3)} (goal <= 0.40); start-up before the first cell ${one.startupS?.toFixed(1) ?? "n/a"} s and ${many.startupS?.toFixed(1) ?? "n/a"} s, ratio of the rest ${one.startupS === null || many.startupS === null ? "n/a" : ((many.wallS - many.startupS) / (one.wallS - one.startupS)).toFixed(3)}`,
    ...(many.cpuS === null
      ? []
      : [`CPU bound: --workers ${workers} kept the ${cpus().length} cores ${((100 * many.cpuS) / (cpus().length * many.wallS)).toFixed(0)}% busy; its ${many.cpuS.toFixed(1)} CPU-s need at least ${(many.cpuS / cpus().length).toFixed(1)} s on ${cpus().length} cores, so no scheduler gets this run's ratio below ${(many.cpuS / cpus().length / one.wallS).toFixed(3)}`]),
    ...(pairs > 1 ? [`median over ${pairs} pairs: ratio ${median(ratios.map((r) => r[0])).toFixed(3)}, after start-up ${median(ratios.map((r) => r[1])).toFixed(3)}${ratios[0][4] === null ? "" : `, CPU-bound least ratio ${median(ratios.map((r) => r[4])).toFixed(3)}`} (the table and phases are the last pair's)`] : []),
    `phase medians at --workers 1: ${phases(one.rows).map(([key, ms]) => `${key} ${fmt(ms)}`).join(", ")}`,
    `phase medians at --workers ${workers}: ${phases(many.rows).map(([key, ms]) => `${key} ${fmt(ms)}`).join(", ")}`,
    // The figures are only comparable on a quiet machine: the load says whether they were measured on one.
    `(${cpus().length} cores; a 1-min load above the core count makes every figure here slower than the harness is)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  if (argv.includes("--keep")) process.stdout.write(`kept: ${scratch}\n`);
  else rmSync(scratch, { recursive: true, force: true });
}
