#!/usr/bin/env node
// The CI and local entry of the evolve loop (reference §2.3): builds the `wfbench evolve` command from environment
// knobs and runs it (or, with --dry-run, prints it). Credentials stay in the environment; they never enter argv.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const USAGE = `Usage: node tools/run-evolution.mjs [--apply] [--dry-run] [-- <wfbench evolve flags>]

Environment: MODEL, PROPOSER_MODEL (default gpt-5.6-sol), EFFORT (xhigh), GENERATIONS (1), RUNS (3), WORKERS (1),
PROVIDER (openai | anthropic | auto), EVOLUTION_PROFILE (review | implementation), CE_PLUGIN_DIR, CE_PLUGIN_VERSION,
TASKS (the suite of the implementation profile, default tasks/demo.yaml; REVIEW_TASKS for review), INCLUDE_EXPENSIVE,
SEED_RESULTS, CLAUDE_BIN, OUT_ROOT, UNSAFE_NO_BWRAP, CI, EVENTBRIDGE_*. Keys: WFBENCH_ANTHROPIC_API_KEY,
WFBENCH_OPENAI_API_KEY (read by the runner from the environment).`;

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const env = process.env;
const fail = (message) => {
  process.stderr.write(`run-evolution: ${message}\n`);
  process.exit(2);
};
const set = (name) => (env[name] ?? "") !== "";

let apply = false;
let dryRun = false;
const passthrough = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  const arg = args[i];
  if (arg === "--apply") apply = true;
  else if (arg === "--dry-run") dryRun = true;
  else if (arg === "-h" || arg === "--help") {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (arg === "--") {
    passthrough.push(...args.slice(i + 1));
    break;
  } else passthrough.push(arg);
}

const OPENAI_DEFAULT = "gpt-5.6-sol";
let model = env["MODEL"] || OPENAI_DEFAULT;
let proposerModel = env["PROPOSER_MODEL"] || OPENAI_DEFAULT;
const provider = env["PROVIDER"] || "openai";
if (!["openai", "anthropic", "auto"].includes(provider)) fail(`PROVIDER=${provider} is not one of openai, anthropic, auto`);
const hasAnthropic = set("WFBENCH_ANTHROPIC_API_KEY") || set("WFBENCH_AUTH_TOKEN");
const hasOpenai = set("WFBENCH_OPENAI_API_KEY");
const route = provider === "auto" ? (!hasAnthropic && hasOpenai ? "openai" : "anthropic") : provider;
if (route === "openai") {
  if (model.startsWith("claude-")) {
    process.stderr.write(`run-evolution: the OpenAI route cannot serve MODEL=${model}; using ${OPENAI_DEFAULT}\n`);
    model = OPENAI_DEFAULT;
  }
  if (proposerModel.startsWith("claude-")) {
    process.stderr.write(`run-evolution: the OpenAI route cannot serve PROPOSER_MODEL=${proposerModel}; using ${OPENAI_DEFAULT}\n`);
    proposerModel = OPENAI_DEFAULT;
  }
}
if (!dryRun) {
  if (route === "openai" && !hasOpenai) fail("PROVIDER routes to OpenAI but WFBENCH_OPENAI_API_KEY is not set");
  if (route === "anthropic" && !hasAnthropic) fail("PROVIDER routes to Anthropic but WFBENCH_ANTHROPIC_API_KEY is not set");
}

const stamp = new Date().toISOString().replace(/[-:]/gu, "").replace(/\.\d+Z$/u, "Z");
const outRoot = env["OUT_ROOT"] || (set("RUNNER_TEMP") ? `${env["RUNNER_TEMP"]}/wfevolve` : `results/wfevolve-${stamp}`);
const argv = ["apps/runner/bin/wfbench.mjs", "evolve", "--model", model, "--proposer-model", proposerModel, "--effort", env["EFFORT"] || "xhigh", "--generations", env["GENERATIONS"] || "1", "--runs", env["RUNS"] || "3", "--workers", env["WORKERS"] || "1"];
// Without CLAUDE_BIN the runner uses its pinned CLI, so no lookup on PATH is needed.
if (set("CLAUDE_BIN")) argv.push("--claude-bin", env["CLAUDE_BIN"]);
argv.push("--out-root", outRoot);
const profile = env["EVOLUTION_PROFILE"] || "review";
if (profile === "review") {
  if (!set("CE_PLUGIN_DIR") || !set("CE_PLUGIN_VERSION")) fail("EVOLUTION_PROFILE=review needs CE_PLUGIN_DIR and CE_PLUGIN_VERSION (or set EVOLUTION_PROFILE=implementation)");
  argv.push("--tasks", env["REVIEW_TASKS"] || "tasks/review.yaml", "--arms", "review", "--ce-plugin-dir", env["CE_PLUGIN_DIR"], "--ce-plugin-version", env["CE_PLUGIN_VERSION"]);
} else if (profile === "implementation") {
  argv.push("--tasks", env["TASKS"] || "tasks/demo.yaml");
} else fail(`EVOLUTION_PROFILE=${profile} is not one of review, implementation`);
if (apply) argv.push("--apply");
if (set("INCLUDE_EXPENSIVE") && !["0", "false"].includes(env["INCLUDE_EXPENSIVE"])) argv.push("--include-expensive");
if (set("SEED_RESULTS")) argv.push("--seed-results", env["SEED_RESULTS"]);
if (env["UNSAFE_NO_BWRAP"] === "1") {
  if (set("CI")) fail("UNSAFE_NO_BWRAP=1 is refused when CI is set");
  argv.push("--unsafe-no-bwrap");
}
argv.push(...passthrough);
if (set("CI")) {
  try {
    readFileSync("/proc/uptime", "utf8");
    argv.push("--max-runtime-from-instance-window");
  } catch {
    // No readable /proc/uptime: no instance-window cap.
  }
}

if (dryRun) {
  process.stdout.write(`${JSON.stringify([process.execPath, ...argv])}\n`);
  process.exit(0);
}
const child = spawnSync(process.execPath, argv, { cwd: REPO_ROOT, stdio: "inherit", env });
process.exit(child.status ?? 1);
