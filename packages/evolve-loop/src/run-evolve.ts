import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { resolveClaudeCli } from "@wfbench/claude-cli";
import { canonicalJson } from "@wfbench/digest";
import { writeFileAtomic } from "@wfbench/durable-fs";
import { applyPromotedOverlay, isPromotionError } from "@wfbench/promotion-gate";
import { loadScript } from "@wfbench/scripted-model";
import { digestSweepRuntime } from "@wfbench/sweep";
import type { SuiteSkills, TaskDefinitionBinding } from "@wfbench/task-suite";
import { buildRunnerArgv, executedBenchmarkArms } from "./build-runner-argv.js";
import { EvolveLoopError, isEvolveLoopError } from "./errors.js";
import { findGenerationProposal, findSeedProposal } from "./find-prior-proposal.js";
import { freezeOverlay } from "./freeze-overlay.js";
import { EVOLVE_USAGE, parseEvolveArgs, type EvolveOptions } from "./parse-evolve-args.js";
import { checkRepoRoot, pinTargetBases } from "./pin-target-bases.js";
import { buildApplyBindings, readGateOutcome } from "./read-gate-outcome.js";
import { recoverInterruptedApply } from "./recover-interrupted-apply.js";
import { resolveTaskBindings } from "./resolve-task-bindings.js";
import { runChild, type ChildOutcome } from "./run-child.js";
import { startRuntimeBudget, type RuntimeBudget } from "./runtime-budget.js";

const execFileAsync = promisify(execFile);

/** Exit codes of `wfbench evolve`, as `wfbench run`: 0 ok, 1 failure or refusal, 2 bad usage, 130 cancelled. */
export const EVOLVE_EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** What an app hands the evolve entry point: the process edge (environment, output, clocks), never read here directly. */
export interface EvolveHost {
  readonly cwd: string;
  /**
   * The environment: CI, EVENTBRIDGE_INSTANCE_WINDOW_SECONDS, EVENTBRIDGE_STOP_RESERVE_SECONDS and HOME are read; the
   * rest is the children's environment (credential-named variables other than WFBENCH_*_API_KEY/_AUTH_TOKEN dropped).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** A monotonic clock in ms (performance.now()). */
  monotonicNowMs(): number;
  /** The text of /proc/uptime, or null when unreadable. */
  readUptime(): string | null;
  now(): Date;
  /** The command that runs `wfbench` (e.g. [node, apps/runner/bin/wfbench.mjs]); `run` / `propose` follow it. */
  readonly wfbench?: readonly [string, ...string[]];
  /** Aborted on SIGTERM/SIGINT: the running child's group is stopped and evolve exits 130. */
  readonly signal?: AbortSignal;
  /** The checkout holding the wfbench sources: its git HEAD is runtime-provenance.json's source_sha (null if none). */
  readonly harnessRoot?: string;
}

const SECRET_FLAGS = new Set(["--anthropic-api-key", "--auth-token", "--openai-api-key"]);
const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD/iu;
const FORWARDED_CREDENTIAL = /^WFBENCH_[A-Z0-9_]*(?:API_KEY|AUTH_TOKEN)$/u;

/** argv with every credential flag's value replaced (`--flag value` and `--flag=value`). */
function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [name] = arg.split("=", 1);
    if (SECRET_FLAGS.has(name as string)) {
      if (arg.includes("=")) out.push(`${name as string}=[redacted]`);
      else {
        out.push(arg);
        if (i + 1 < argv.length) {
          out.push("[redacted]");
          i += 1;
        }
      }
    } else out.push(arg);
  }
  return out;
}

/** The children's environment: no credential-named variable but WFBENCH_*_API_KEY/_AUTH_TOKEN, plus the flag keys. */
function childEnv(host: EvolveHost, options: EvolveOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host.env)) {
    if (value === undefined) continue;
    if (CREDENTIAL_NAME.test(name) && !FORWARDED_CREDENTIAL.test(name)) continue;
    env[name] = value;
  }
  if (options.anthropicApiKey !== null) env["WFBENCH_ANTHROPIC_API_KEY"] = options.anthropicApiKey;
  if (options.authToken !== null) env["WFBENCH_AUTH_TOKEN"] = options.authToken;
  if (options.openaiApiKey !== null) env["WFBENCH_OPENAI_API_KEY"] = options.openaiApiKey;
  return env;
}

/** git HEAD of `root`, or null when it is not a git checkout (an installed package): provenance, never a gate input. */
async function readSourceSha(root: string): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync("git", ["-C", root, "rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], { timeout: 10_000, encoding: "utf8" });
    const sha = stdout.trim();
    return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)}\n`;
}

interface Loop {
  readonly options: EvolveOptions;
  readonly host: EvolveHost;
  readonly budget: RuntimeBudget;
  readonly signal: AbortSignal;
  readonly wfbench: readonly [string, ...string[]];
  readonly env: Record<string, string>;
  readonly repoRoot: string;
  readonly skills: SuiteSkills;
  readonly bindings: readonly TaskDefinitionBinding[];
  readonly reviewTaskIds: readonly string[];
  readonly bindingsPath: string;
}

class Cancelled extends Error {}

function refuseStep(loop: Loop, step: string): void {
  const refusal = loop.budget.refusePaidStep(loop.host.monotonicNowMs(), step);
  if (refusal !== null) throw new EvolveLoopError("EVOLVE_LOOP_BAD_BUDGET", refusal);
}

async function spawnWfbench(loop: Loop, args: readonly string[], timeoutS: number | null): Promise<ChildOutcome> {
  const [command, ...prefix] = loop.wfbench;
  const outcome = await runChild({
    command,
    args: [...prefix, ...args],
    cwd: loop.host.cwd,
    env: loop.env,
    timeoutMs: timeoutS === null ? null : timeoutS * 1000,
    signal: loop.signal,
    onStdout: (text) => loop.host.stdout(text),
    onStderr: (text) => loop.host.stderr(text),
    onStart: (pid) => loop.host.stdout(`wfbench ${args[0] ?? ""} started: pid ${pid}, process group ${pid}\n`),
  });
  if (outcome.cancelled) throw new Cancelled();
  return outcome;
}

function childTimeoutS(loop: Loop): number | null {
  const left = loop.budget.remainingSeconds(loop.host.monotonicNowMs());
  return Number.isFinite(left) ? Math.max(1, Math.floor(left)) : null;
}

/** Runs `wfbench propose` (its contract: an overlay and proposal.md under --out) and returns the overlay directory. */
async function propose(loop: Loop, generation: number, genDir: string, evidence: string | null, priorProposal: string | null): Promise<string> {
  const { options } = loop;
  const probe = await spawnWfbench(loop, ["propose", "--help"], 60);
  if (probe.exitCode !== 0) {
    throw new EvolveLoopError("EVOLVE_LOOP_CHILD_FAILED", `generation ${generation} needs the proposer, but this build's wfbench has no working \`propose\` command (\`wfbench propose --help\` exited ${String(probe.exitCode)}): pass --initial-overlay DIR with --generations 1, or use a build that ships \`wfbench propose\``);
  }
  refuseStep(loop, `the generation-${generation} proposer`);
  const out = join(genDir, "proposer");
  const review = options.arms?.includes("review") === true;
  const args = ["propose", "--tasks", options.tasks, "--repo-root", loop.repoRoot, "--out", out, "--model", options.proposerModel, "--effort", options.effort];
  args.push("--timeout", String(loop.budget.clampTimeoutSeconds(loop.host.monotonicNowMs(), options.timeoutS)), "--profile", review ? "review" : "implementation");
  if (evidence !== null) args.push("--evidence-results", evidence);
  if (priorProposal !== null) args.push("--prior-proposal", priorProposal);
  if (existsSync(options.learnings)) args.push("--learnings", options.learnings);
  if (options.proposerScript !== null) args.push("--script", options.proposerScript);
  if (options.baseUrl !== null) args.push("--base-url", options.baseUrl);
  if (options.claudeBin !== null) args.push("--claude-bin", options.claudeBin);
  const outcome = await spawnWfbench(loop, args, childTimeoutS(loop));
  if (outcome.exitCode !== 0) throw new EvolveLoopError("EVOLVE_LOOP_CHILD_FAILED", `generation ${generation}: the proposer ${outcome.timedOut ? "hit the runtime cap" : `exited ${String(outcome.exitCode)}`}; its record is under ${out}`);
  return join(out, "overlay");
}

async function runGenerations(loop: Loop): Promise<number> {
  const { options, host } = loop;
  let evidence = options.seedResults;
  let priorProposal = options.seedResults === null ? null : findSeedProposal(options.seedResults);
  for (let generation = 0; generation < options.generations; generation += 1) {
    const genDir = join(options.outRoot, `gen-${generation}`);
    await mkdir(genDir, { recursive: true });
    host.stdout(`== generation ${generation} ==\n`);
    const proposed = !(generation === 0 && options.initialOverlay !== null);
    const source = proposed ? await propose(loop, generation, genDir, evidence, priorProposal) : (options.initialOverlay as string);
    const frozen = await freezeOverlay(source, join(genDir, "frozen-overlay"), loop.skills);
    const incumbentArms = frozen.overlay.requiredArms.filter((arm) => !arm.startsWith("candidate_"));
    if (options.arms !== null && [...options.arms].sort().join(" ") !== [...incumbentArms].sort().join(" ")) {
      throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--arms ${options.arms.join(" ")}: the generation-${generation} overlay touches ${frozen.overlay.skills.join(", ")}, so it is measured against ${incumbentArms.join(" ")}: pass those arms or omit --arms`);
    }
    // Reference §5.5 step 6: every selected task needs evidence from every candidate arm, and review arms run only on
    // review tasks (the others only on implementation tasks): a mixed suite could never promote, so it is refused unpaid.
    const reviewOverlay = incumbentArms.includes("review");
    const idle = loop.bindings.map((binding) => binding.id).filter((id) => loop.reviewTaskIds.includes(id) !== reviewOverlay || (reviewOverlay && incumbentArms.length > 1));
    if (idle.length > 0) {
      throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--tasks ${options.tasks}: the generation-${generation} overlay is measured with ${executedBenchmarkArms(incumbentArms).join(" ")}, which do not run on selected task(s) ${idle.join(", ")}, so no decision could cover every selected task: pass a suite of ${reviewOverlay ? "review" : "implementation"} tasks only`);
    }
    const targetBases = await pinTargetBases(loop.repoRoot, frozen.overlay.files.map((file) => file.path));
    const targetBasesPath = join(genDir, "target-bases.json");
    await writeFileAtomic(targetBasesPath, json(targetBases), { mode: 0o644 });
    refuseStep(loop, `the generation-${generation} sweep`);
    const benchOut = join(genDir, "bench");
    const argv = buildRunnerArgv(options, {
      frozenOverlay: frozen.root,
      benchOut,
      incumbentArms,
      taskBindingsJson: loop.bindingsPath,
      targetBasesJson: targetBasesPath,
      reuseResults: evidence,
      proposed,
      sessionTimeoutS: Math.max(1, loop.budget.clampTimeoutSeconds(host.monotonicNowMs(), options.timeoutS)),
    });
    if (options.script !== null) argv.push("--script", options.script);
    const sweep = await spawnWfbench(loop, ["run", ...argv], childTimeoutS(loop));
    if (sweep.exitCode !== 0) {
      host.stderr(`wfbench evolve: generation ${generation}: the sweep ${sweep.timedOut ? "hit the runtime cap and was stopped" : `exited ${String(sweep.exitCode)}`}; its output is under ${benchOut}\n`);
      return EVOLVE_EXIT.failed;
    }
    const candidateArms = executedBenchmarkArms(incumbentArms).filter((arm) => arm.startsWith("candidate_"));
    const bindings = buildApplyBindings(options, { candidateArms, overlayDigest: frozen.digest, proposed, selectedTasks: loop.bindings, targetBases });
    await writeFileAtomic(join(genDir, "apply-bindings.json"), json(bindings), { mode: 0o644 });
    const gate = await readGateOutcome(join(benchOut, "promotion.json"), bindings, host.now());
    host.stdout(`gate (generation ${generation}, overlay ${frozen.digest}):\n${gate.summary.map((line) => `  ${line}\n`).join("")}`);
    if (gate.kind === "promote") {
      host.stdout(`PROMOTED: generation ${generation}'s overlay (${frozen.root})\n`);
      if (!options.apply) {
        host.stdout(`not applied: rerun with --apply, or copy ${frozen.root} into ${loop.repoRoot} by hand\n`);
        return EVOLVE_EXIT.ok;
      }
      await recoverInterruptedApply(loop.repoRoot, [...new Set(Object.values(loop.skills))], (line) => host.stdout(line));
      const applied = applyPromotedOverlay({ repoRoot: loop.repoRoot, files: frozen.overlay.files, skills: [...new Set(Object.values(loop.skills))], expectedOverlayDigest: frozen.digest, expectedTargetBases: targetBases, now: host.now() });
      if (!applied.ok) {
        host.stderr(`wfbench evolve: apply refused (${applied.error.code}): ${applied.error.message}; nothing was written\n`);
        return EVOLVE_EXIT.failed;
      }
      host.stdout(`applied to ${loop.repoRoot} (commit it yourself):\n${applied.value.written.map((path) => `  ${path}\n`).join("")}`);
      return EVOLVE_EXIT.ok;
    }
    host.stdout(`NOT PROMOTED — ${gate.reason}\n`);
    evidence = benchOut;
    priorProposal = findGenerationProposal(genDir);
  }
  host.stdout("No candidate cleared the gate; the incumbent skills stay as they are.\n");
  return EVOLVE_EXIT.ok;
}

/**
 * Runs one `wfbench evolve` invocation and returns its exit code (reference §9.1). Reads the monotonic clock and
 * /proc/uptime first, so the runtime cap and its clock describe one instant; refuses bad flags (2) and a cap with
 * under 600 s left (1) before any paid step. Then pins the task bindings once, and per generation: takes the overlay
 * (--initial-overlay for generation 0, else `wfbench propose`), freezes it, pins its destinations' committed bases
 * (drift refuses), runs the paired sweep as a child in its own process group, re-validates its promotion.json and, on
 * promote with --apply, applies the frozen bytes through promotion-gate's transaction.
 */
export async function runEvolve(argv: readonly string[], host: EvolveHost): Promise<number> {
  const startMs = host.monotonicNowMs();
  const startedAt = host.now();
  const uptimeText = host.readUptime();
  const parsed = parseEvolveArgs(argv, {
    cwd: host.cwd,
    now: startedAt,
    ci: (host.env["CI"] ?? "") !== "",
    uptimeText,
    instanceWindowSeconds: host.env["EVENTBRIDGE_INSTANCE_WINDOW_SECONDS"],
    stopReserveSeconds: host.env["EVENTBRIDGE_STOP_RESERVE_SECONDS"],
  });
  if (!parsed.ok) {
    host.stderr(`wfbench evolve: ${parsed.error.message}\n\nSee wfbench evolve --help.\n`);
    return EVOLVE_EXIT.usage;
  }
  if (parsed.help) {
    host.stdout(`${EVOLVE_USAGE}\n`);
    return EVOLVE_EXIT.ok;
  }
  const { options } = parsed;
  const budget = startRuntimeBudget(options.maxRuntimeS, startMs);
  const firstStep = options.initialOverlay === null ? "the generation-0 proposer" : "the generation-0 sweep";
  const refusal = budget.refusePaidStep(host.monotonicNowMs(), firstStep);
  if (refusal !== null) {
    host.stderr(`wfbench evolve: ${refusal}\n`);
    return EVOLVE_EXIT.failed;
  }
  if (host.wfbench === undefined) {
    host.stderr("wfbench evolve: this host gives the loop no wfbench command to run the sweep with\n");
    return EVOLVE_EXIT.failed;
  }
  const signal = host.signal ?? new AbortController().signal;
  try {
    const repoRoot = await checkRepoRoot(options.repoRoot);
    // One runtime digest for every generation's sweep (reference §2.3), so reuse across generations compares like with
    // like; it is computed here with the sweep's own function from the CLI and script the children will run.
    const cli = await resolveClaudeCli({ claudeBin: options.claudeBin });
    const script = options.script === null ? null : await loadScript(options.script);
    if (script !== null && !script.ok) throw new EvolveLoopError("EVOLVE_LOOP_BAD_INPUT", `--script ${options.script ?? ""}: ${script.error.message}`);
    const runtimeDigest = await digestSweepRuntime({ claudePath: cli.path, claudeVersion: cli.version, script: script?.value ?? null });
    const env = { ...childEnv(host, options), WFBENCH_RUNTIME_DIGEST: runtimeDigest };
    await mkdir(options.outRoot, { recursive: true });
    await writeFileAtomic(
      join(options.outRoot, "runtime-provenance.json"),
      json({
        schema_version: 1,
        started_at: startedAt.toISOString(),
        runtime_cap_seconds: options.maxRuntimeS,
        node_version: process.version,
        claude_cli_version: cli.version,
        runtime_digest: runtimeDigest,
        source_sha: host.harnessRoot === undefined ? null : await readSourceSha(host.harnessRoot),
        profile: options.arms?.includes("review") === true ? "review" : "implementation",
        ce_plugin_version: options.cePluginVersion,
        sandbox_backend: options.unsafeNoBwrap ? "host-unsafe" : "bwrap",
        benchmark_model: options.model,
        proposer_model: options.proposerModel,
        effort: options.effort,
        generations: options.generations,
        repo_root: repoRoot,
        out_root: options.outRoot,
        apply: options.apply,
        unsafe_no_bwrap: options.unsafeNoBwrap,
        argv: redactArgv(argv),
      }),
      { mode: 0o644 },
    );
    const resolved = await resolveTaskBindings({ tasks: options.tasks, includeExpensive: options.includeExpensive, oraclesRoot: resolve(host.cwd, "oracles"), homeDir: host.env["HOME"] ?? null, scratchParent: options.outRoot });
    const bindingsPath = join(options.outRoot, "task-bindings.json");
    await writeFileAtomic(bindingsPath, json(resolved.bindings), { mode: 0o644 });
    return await runGenerations({ options, host, budget, signal, wfbench: host.wfbench, env, repoRoot, skills: resolved.skills, bindings: resolved.bindings, reviewTaskIds: resolved.reviewTaskIds, bindingsPath });
  } catch (error) {
    if (error instanceof Cancelled) {
      host.stderr("wfbench evolve: cancelled; the running child was stopped\n");
      return EVOLVE_EXIT.cancelled;
    }
    if (isEvolveLoopError(error)) {
      host.stderr(`wfbench evolve: ${error.code}: ${error.message}\n`);
      return error.code === "EVOLVE_LOOP_BAD_INPUT" ? EVOLVE_EXIT.usage : EVOLVE_EXIT.failed;
    }
    if (isPromotionError(error)) {
      host.stderr(`wfbench evolve: ${error.code}: ${error.message}\n`);
      return EVOLVE_EXIT.failed;
    }
    throw error;
  }
}
