#!/usr/bin/env node
// The `wfbench` command: picks the subcommand, prints its usage, and maps its outcome to the exit codes of `run`.
import { isReportHtmlError } from "@wfbench/report-html";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs as nodeParseArgs } from "node:util";
import { runEvolve } from "@wfbench/evolve-loop";
import { isBenchReportError } from "@wfbench/bench-report";
import { isDurableFsError } from "@wfbench/durable-fs";
import { isRunnerError } from "./errors.js";
import { EXIT_OK, EXIT_OUTAGE, EXIT_USAGE, main as runMain } from "./main.js";
import { isSweepError } from "@wfbench/sweep";
import { runMerge } from "./merge-command.js";
import { propose } from "./propose-command.js";
import { rerenderReport } from "./report-command.js";

/** The top-level usage text. */
export const CLI_USAGE = `Usage: wfbench <command> [flags]

Commands:
  run       run a sweep (tasks × arms × repeats) and write results.jsonl and report.md
  report    re-render report.md of an existing output directory from its results.jsonl
  merge     merge the output directories of a sharded sweep (run --shard k/N) into one
  propose   run one proposer session: a skill overlay and proposal.md from benchmark evidence
  evolve    benchmark skill overlays generation by generation, gate them and (--apply) apply a promoted one

Run \`wfbench <command> --help\` for a command's flags. From a checkout: npx wfbench …, or npx nx run runner:bench.

Exit codes: 0 ok, 1 outage, unusable arm or environment failure, 2 bad usage or input, 130 cancelled.`;

const REPORT_USAGE = `Usage: wfbench report <out-dir>   (or --out <out-dir>)

Re-renders <out-dir>/report.md from <out-dir>/results.jsonl, report-provenance.json and promotion.json (when present),
with the same renderer as \`wfbench run\`. Nothing else in the directory changes.

  --out <dir>   the output directory of a finished \`wfbench run\`
  --help        this text`;

const MERGE_USAGE = `Usage: wfbench merge <out-dir> <shard-dir>...

Joins the output directories of \`wfbench run --shard k/N\` (k = 1..N, same flags otherwise) into <out-dir>, which must
be new or empty. Refuses, before writing anything, shards of different sweeps (model, effort, upstream, Claude Code
version, arms, repeats, task bindings, overlay; backend, runtime and CE plugin row by row), a shard given twice, and
any planned cell that is missing or recorded twice. Writes results.jsonl in plan order (contamination alarm
recomputed across shards), the transcripts, patches and review artifacts (re-digested), report.md, report.html,
report-stats.json, sweep-plan.json and, for a candidate sweep, promotion.json.

  --help   this text`;

function usageError(command: string, message: string, usage: string): number {
  process.stderr.write(`wfbench${command === "" ? "" : ` ${command}`}: ${message}\n\n${usage}\n`);
  return EXIT_USAGE;
}

const REPORT_OPTIONS = { out: { type: "string" }, help: { type: "boolean", short: "h" } } as const;

async function report(argv: readonly string[]): Promise<number> {
  let parsed: { values: { out?: string | undefined; help?: boolean | undefined }; positionals: string[] };
  try {
    parsed = nodeParseArgs({ args: [...argv], options: REPORT_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError("report", `${(error as Error).message.split("\n")[0] ?? ""}: see --help`, REPORT_USAGE);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${REPORT_USAGE}\n`);
    return EXIT_OK;
  }
  const dirs = [...(parsed.values.out === undefined ? [] : [parsed.values.out]), ...parsed.positionals];
  if (dirs.length !== 1) return usageError("report", dirs.length === 0 ? "needs the output directory to re-render" : `takes one output directory, got ${dirs.length}: ${dirs.map((d) => JSON.stringify(d)).join(", ")}`, REPORT_USAGE);
  try {
    const done = await rerenderReport(dirs[0] as string, process.cwd());
    if (done.tornTail) process.stderr.write("wfbench report: warning: results.jsonl ends in a torn line (an interrupted write); it was skipped\n");
    for (const path of done.written) process.stdout.write(`wrote ${path}\n`);
    return EXIT_OK;
  } catch (error) {
    if (isRunnerError(error) && error.code === "RUNNER_BAD_INPUT") return usageError("report", error.message, "See wfbench report --help.");
    if (isRunnerError(error) || isBenchReportError(error) || isDurableFsError(error) || isReportHtmlError(error)) {
      process.stderr.write(`wfbench report: ${(error as Error & { code: string }).code}: ${(error as Error).message}\n`);
      return EXIT_OUTAGE;
    }
    throw error;
  }
}

async function merge(argv: readonly string[]): Promise<number> {
  let parsed: { values: { help?: boolean | undefined }; positionals: string[] };
  try {
    parsed = nodeParseArgs({ args: [...argv], options: { help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError("merge", `${(error as Error).message.split("\n")[0] ?? ""}: see --help`, MERGE_USAGE);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${MERGE_USAGE}\n`);
    return EXIT_OK;
  }
  const [out, ...shards] = parsed.positionals;
  if (out === undefined || shards.length === 0) return usageError("merge", "needs the output directory and at least one shard directory", MERGE_USAGE);
  try {
    const done = await runMerge(out, shards, process.cwd(), new Date());
    const decisions = done.promotion === null ? "" : `; promotion: ${done.promotion.decisions.map((d) => `${d.candidateArm}: ${d.decision}`).join(", ")}`;
    const alarm = done.contaminatedRows === 0 ? "" : `; contamination alarm on ${done.contaminatedRows} row(s), see report.md`;
    process.stdout.write(`merged ${done.shards} shard(s): ${done.rows} row(s), sweep ${done.status}${alarm}${decisions}\n  results: ${done.resultsPath}\n  report:  ${done.reportPath}\n`);
    return EXIT_OK;
  } catch (error) {
    if (isSweepError(error) && error.code === "SWEEP_BAD_INPUT") return usageError("merge", error.message, "See wfbench merge --help.");
    if (isSweepError(error) || isBenchReportError(error) || isDurableFsError(error) || isReportHtmlError(error)) {
      process.stderr.write(`wfbench merge: ${(error as Error & { code: string }).code}: ${(error as Error).message}\n`);
      return EXIT_OUTAGE;
    }
    throw error;
  }
}

// The loop lives in @wfbench/evolve-loop, shared with apps/evolve; this app only hands it the process edge, and its
// own bin as the command that runs each generation's `wfbench run` (and `wfbench propose`) child.
async function evolve(argv: readonly string[]): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    return await runEvolve(argv, {
      cwd: process.cwd(),
      env: process.env,
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      monotonicNowMs: () => performance.now(),
      readUptime: () => {
        try {
          return readFileSync("/proc/uptime", "utf8");
        } catch {
          return null;
        }
      },
      now: () => new Date(),
      wfbench: [process.execPath, fileURLToPath(new URL("../bin/wfbench.mjs", import.meta.url))],
      harnessRoot: fileURLToPath(new URL("../../..", import.meta.url)),
      signal: stop.signal,
    });
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

/** Runs one `wfbench` invocation (argv without node and the script) and returns its exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `run` keeps the sweep's own parser and usage (main.ts), so `nx run runner:bench` and `wfbench run` are one path.
  if (command === "run") return runMain(rest);
  if (command === "report") return report(rest);
  if (command === "merge") return merge(rest);
  if (command === "propose") return propose(rest);
  if (command === "evolve") return evolve(rest);
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${CLI_USAGE}\n`);
    return EXIT_OK;
  }
  return usageError("", command === undefined ? "needs a command" : `unknown command ${JSON.stringify(command)}: choose run, report, merge, propose or evolve`, CLI_USAGE);
}

process.exitCode = await runCli(process.argv.slice(2));
