import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { instanceWindowBudgetSeconds, INSTANCE_WINDOW_SECONDS, MIN_PAID_STEP_SECONDS, STOP_RESERVE_SECONDS } from "./runtime-budget.js";

/** Incumbent arms an evolve run may name (reference §2.2). */
export const EVOLVE_ARMS = ["workflow", "workflow_direct", "review"] as const;
/** Effort levels (reference §2.1). */
export const EVOLVE_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
/** Largest --workers (reference Appendix A). */
export const EVOLVE_MAX_WORKERS = 8;

/** Everything `wfbench evolve` was asked to do, validated; paths are absolute. */
export interface EvolveOptions {
  readonly tasks: string;
  readonly model: string;
  readonly proposerModel: string;
  readonly runs: number;
  readonly workers: number;
  readonly generations: number;
  /** The requested incumbent arms, or null (the overlay decides). */
  readonly arms: readonly (typeof EVOLVE_ARMS)[number][] | null;
  readonly seedResults: string | null;
  readonly initialOverlay: string | null;
  readonly learnings: string;
  readonly apply: boolean;
  readonly outRoot: string;
  readonly claudeBin: string | null;
  readonly effort: (typeof EVOLVE_EFFORTS)[number];
  readonly timeoutS: number;
  /** The wall-clock cap in seconds (from --max-runtime-seconds or the instance window), or null. */
  readonly maxRuntimeS: number | null;
  readonly baseUrl: string | null;
  readonly anthropicApiKey: string | null;
  readonly authToken: string | null;
  readonly openaiApiKey: string | null;
  readonly promotion: { readonly metric: string; readonly minRuns: number; readonly minImprovementPct: number; readonly maxTaskRegressionPct: number };
  readonly includeExpensive: boolean;
  readonly cePluginDir: string | null;
  readonly cePluginVersion: string | null;
  readonly unsafeNoBwrap: boolean;
  /** The git working tree whose `.claude/skills/<skill>/` hold the incumbent skills; apply writes there. */
  readonly repoRoot: string;
  /** The scripted model's script passed to the runner child (offline/demo only), or null for the runner's default. */
  readonly script: string | null;
  /** The scripted model's script passed to the `wfbench propose` child as its --script (offline/demo only), or null. */
  readonly proposerScript: string | null;
}

/** What the caller knows about its environment at the instant the monotonic clock started. */
export interface EvolveArgsContext {
  readonly cwd: string;
  readonly now: Date;
  /** True when the CI environment variable is set. */
  readonly ci: boolean;
  /** The text of /proc/uptime read at clock start, or null when it was not readable. */
  readonly uptimeText: string | null;
  /** EVENTBRIDGE_INSTANCE_WINDOW_SECONDS / EVENTBRIDGE_STOP_RESERVE_SECONDS, when set. */
  readonly instanceWindowSeconds?: string | undefined;
  readonly stopReserveSeconds?: string | undefined;
}

/** A usage problem: the flag at fault and a message naming the fix. */
export interface EvolveUsageError {
  readonly flag: string;
  readonly message: string;
}

/** The parse outcome: options, a request for help, or a usage error (all values, nothing thrown). */
export type EvolveArgsResult = { readonly ok: true; readonly help: true } | { readonly ok: true; readonly help: false; readonly options: EvolveOptions } | { readonly ok: false; readonly error: EvolveUsageError };

/** The usage text of `wfbench evolve`. */
export const EVOLVE_USAGE = `Usage: wfbench evolve --tasks <yaml> --model <id> [flags]

Proposes a skill overlay, benchmarks it against the incumbent and lets the promotion gate decide (reference §2.2).
Every flag is checked before any paid step.

  --tasks <yaml>                 task suite (required)
  --model <id>                   benchmark model, named and versioned (required)
  --proposer-model <id>          proposer session model (default: --model)
  --runs <n>                     runs per arm per task, 1..100 (default 3; the gate needs 3)
  --workers <n>                  cells at once, 1..${EVOLVE_MAX_WORKERS} (default 1)
  --generations <n>              generations, 1 or more (default 1); promote stops the loop
  --arms <arm...>                incumbent arms: ${EVOLVE_ARMS.join(" | ")} (default: what the overlay needs)
  --seed-results <dir>           earlier results: generation-0 evidence and the --reuse-results source
  --initial-overlay <dir>        skip the generation-0 proposer and benchmark this overlay
  --learnings <jsonl>            learning queue (default learnings.jsonl)
  --apply                        on promote, apply the overlay to the working tree
  --out-root <dir>               default results/wfevolve-<UTC %Y%m%d-%H%M%S>
  --claude-bin <path>            default: the pinned CLI
  --effort <level>               ${EVOLVE_EFFORTS.join(" | ")} (default xhigh)
  --timeout <seconds>            per session, 1..86400 (default 5400)
  --max-runtime-seconds <n>      wall-clock cap
  --max-runtime-from-instance-window
                                 cap = window − /proc/uptime − reserve (EVENTBRIDGE_INSTANCE_WINDOW_SECONDS,
                                 EVENTBRIDGE_STOP_RESERVE_SECONDS; defaults ${INSTANCE_WINDOW_SECONDS} and ${STOP_RESERVE_SECONDS})
  --base-url <url>, --anthropic-api-key <key>, --auth-token <token>, --openai-api-key <key>   as wfbench run
  --promotion-metric <m>         default cost_usd
  --promotion-min-runs <n>       default 3
  --promotion-min-improvement <pct>      default 5.0
  --promotion-max-task-regression <pct>  default 20.0
  --include-expensive            include tasks marked expensive
  --ce-plugin-dir <dir>, --ce-plugin-version <X.Y.Z>   required with --arms review
  --unsafe-no-bwrap              only with --arms review; refused with --apply and under CI
  --repo-root <dir>              git working tree holding the incumbent .claude/skills (default: cwd); --apply writes there
  --script <file>                scripted model script for the sweep (offline/demo only; default: the runner's)
  --proposer-script <file>       scripted model script for the proposer (offline/demo only; default: propose's)
  --help                         this text`;

const OPTIONS = {
  tasks: { type: "string" },
  model: { type: "string" },
  "proposer-model": { type: "string" },
  runs: { type: "string" },
  workers: { type: "string" },
  generations: { type: "string" },
  arms: { type: "string", multiple: true },
  "seed-results": { type: "string" },
  "initial-overlay": { type: "string" },
  learnings: { type: "string" },
  apply: { type: "boolean" },
  "out-root": { type: "string" },
  "claude-bin": { type: "string" },
  effort: { type: "string" },
  timeout: { type: "string" },
  "max-runtime-seconds": { type: "string" },
  "max-runtime-from-instance-window": { type: "boolean" },
  "base-url": { type: "string" },
  "anthropic-api-key": { type: "string" },
  "auth-token": { type: "string" },
  "openai-api-key": { type: "string" },
  "promotion-metric": { type: "string" },
  "promotion-min-runs": { type: "string" },
  "promotion-min-improvement": { type: "string" },
  "promotion-max-task-regression": { type: "string" },
  "include-expensive": { type: "boolean" },
  "ce-plugin-dir": { type: "string" },
  "ce-plugin-version": { type: "string" },
  "unsafe-no-bwrap": { type: "boolean" },
  "repo-root": { type: "string" },
  script: { type: "string" },
  "proposer-script": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

// `--arms a b` takes every value up to the next flag (argparse nargs="+", as `wfbench run --arms`): spelled here as
// `--arms a --arms b` so node:util.parseArgs sees one value per flag.
function spreadArms(argv: readonly string[]): string[] {
  const out: string[] = [];
  let inArms = false;
  for (const arg of argv) {
    if (arg === "--arms") {
      inArms = true;
      out.push(arg);
    } else if (inArms && !arg.startsWith("-") && out.at(-1) !== "--arms") out.push("--arms", arg);
    else {
      if (arg.startsWith("-")) inArms = false;
      out.push(arg);
    }
  }
  return out;
}

class Usage extends Error {
  constructor(readonly flag: string, message: string) {
    super(message);
  }
}

function integer(flag: string, text: string, min: number, max: number, fix: string): number {
  if (!/^\d+$/u.test(text.trim()) || !Number.isSafeInteger(Number(text.trim()))) throw new Usage(flag, `${flag} ${JSON.stringify(text)} is not a whole number: ${fix}`);
  const value = Number(text.trim());
  if (value < min || value > max) throw new Usage(flag, `${flag} ${value} is out of range ${min}..${max}: ${fix}`);
  return value;
}

function decimal(flag: string, text: string, fix: string): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(value)) throw new Usage(flag, `${flag} ${JSON.stringify(text)} is not a number: ${fix}`);
  return value;
}

/** Refuses model ids that float: blank, or ending in `auto`/`latest` at a word boundary (as wfbench run does). */
function checkModel(flag: string, model: string): string {
  if (model.trim() === "") throw new Usage(flag, `${flag} must not be blank: pass a named, versioned model such as claude-sonnet-4-5`);
  if (/(?:^|[-/@:])(?:auto|latest)$/iu.test(model.trim())) throw new Usage(flag, `${flag} ${JSON.stringify(model)} floats: pass a pinned, versioned model id (not *-latest or auto)`);
  return model.trim();
}

function timestamp(now: Date): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function runtimeCap(values: { "max-runtime-seconds"?: string | undefined; "max-runtime-from-instance-window"?: boolean | undefined }, context: EvolveArgsContext): number | null {
  const explicit = values["max-runtime-seconds"];
  const fromWindow = values["max-runtime-from-instance-window"] === true;
  if (explicit !== undefined && fromWindow) throw new Usage("--max-runtime-seconds", "--max-runtime-seconds and --max-runtime-from-instance-window exclude each other: pass one");
  if (explicit !== undefined) return integer("--max-runtime-seconds", explicit, 1, Number.MAX_SAFE_INTEGER, "pass a positive number of seconds");
  if (!fromWindow) return null;
  if (context.uptimeText === null) throw new Usage("--max-runtime-from-instance-window", "--max-runtime-from-instance-window needs a readable /proc/uptime: pass --max-runtime-seconds instead");
  const window = context.instanceWindowSeconds === undefined ? INSTANCE_WINDOW_SECONDS : integer("EVENTBRIDGE_INSTANCE_WINDOW_SECONDS", context.instanceWindowSeconds, 1, Number.MAX_SAFE_INTEGER, "set it to the instance lifetime in seconds");
  const reserve = context.stopReserveSeconds === undefined ? STOP_RESERVE_SECONDS : integer("EVENTBRIDGE_STOP_RESERVE_SECONDS", context.stopReserveSeconds, 0, Number.MAX_SAFE_INTEGER, "set it to the seconds kept back before the stop");
  let budget: number;
  try {
    budget = instanceWindowBudgetSeconds(context.uptimeText, window, reserve);
  } catch (error) {
    throw new Usage("--max-runtime-from-instance-window", `--max-runtime-from-instance-window: ${(error as Error).message}: pass --max-runtime-seconds instead`);
  }
  if (budget < MIN_PAID_STEP_SECONDS) throw new Usage("--max-runtime-from-instance-window", `--max-runtime-from-instance-window leaves ${budget} s (window ${window} − uptime − reserve ${reserve}), below the ${MIN_PAID_STEP_SECONDS} s a sweep needs: start on a fresh instance or lower EVENTBRIDGE_STOP_RESERVE_SECONDS`);
  return budget;
}

/** True when a URL names a user or password before its host (`scheme://user:pass@host`), parseable or not. */
function carriesUserinfo(text: string): boolean {
  try {
    const url = new URL(text);
    if (url.username !== "" || url.password !== "") return true;
  } catch {
    // Not a URL: the authority is checked by hand below.
  }
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/u.test(text);
}

/**
 * Parses and validates `wfbench evolve` argv (reference §2.2) before any paid step. Trusts `context` to describe the
 * instant the caller's monotonic clock started; refuses unknown flags, floating models, out-of-range numbers, review
 * without a CE plugin, and --unsafe-no-bwrap outside `--arms review`, with --apply or under CI.
 */
export function parseEvolveArgs(argv: readonly string[], context: EvolveArgsContext): EvolveArgsResult {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: spreadArms(argv), options: OPTIONS, allowPositionals: false, strict: true });
    } catch (error) {
      throw new Usage("", `${(error as Error).message.split("\n")[0] ?? ""}: see --help`);
    }
    const v = parsed.values;
    if (v.help === true) return { ok: true, help: true };
    const path = (text: string): string => resolve(context.cwd, text);
    if (v.tasks === undefined || v.tasks.trim() === "") throw new Usage("--tasks", "--tasks is required: pass the task suite YAML");
    if (v.model === undefined) throw new Usage("--model", "--model is required: pass a named, versioned model such as claude-sonnet-4-5");
    const model = checkModel("--model", v.model);
    const proposerModel = v["proposer-model"] === undefined ? model : checkModel("--proposer-model", v["proposer-model"]);
    const runs = integer("--runs", v.runs ?? "3", 1, 100, "pass --runs 1..100 (the gate needs 3)");
    const workers = integer("--workers", v.workers ?? "1", 1, EVOLVE_MAX_WORKERS, `pass --workers between 1 and ${EVOLVE_MAX_WORKERS}`);
    const generations = integer("--generations", v.generations ?? "1", 1, 10_000, "pass --generations 1 or more");
    let arms: (typeof EVOLVE_ARMS)[number][] | null = null;
    if (v.arms !== undefined) {
      arms = [];
      for (const arm of v.arms.flatMap((a) => a.split(/[\s,]+/u)).filter((a) => a !== "")) {
        if (!(EVOLVE_ARMS as readonly string[]).includes(arm)) throw new Usage("--arms", `--arms: ${JSON.stringify(arm)} is not an incumbent arm: choose from ${EVOLVE_ARMS.join(", ")}`);
        if ((arms as string[]).includes(arm)) throw new Usage("--arms", `--arms: arm ${arm} listed twice: list each arm once`);
        arms.push(arm as (typeof EVOLVE_ARMS)[number]);
      }
      if (arms.length === 0) throw new Usage("--arms", `--arms names no arm: choose from ${EVOLVE_ARMS.join(", ")} or omit it`);
    }
    const effort = v.effort ?? "xhigh";
    if (!(EVOLVE_EFFORTS as readonly string[]).includes(effort)) throw new Usage("--effort", `--effort ${JSON.stringify(effort)} is not one of ${EVOLVE_EFFORTS.join(", ")}`);
    const timeoutS = integer("--timeout", v.timeout ?? "5400", 1, 86_400, "pass --timeout in seconds, e.g. 5400");
    const maxRuntimeS = runtimeCap(v, context);
    const minRuns = integer("--promotion-min-runs", v["promotion-min-runs"] ?? "3", 1, 100, "pass --promotion-min-runs 1 or more");
    const minImprovementPct = decimal("--promotion-min-improvement", v["promotion-min-improvement"] ?? "5.0", "e.g. --promotion-min-improvement 5");
    const maxTaskRegressionPct = decimal("--promotion-max-task-regression", v["promotion-max-task-regression"] ?? "20.0", "e.g. --promotion-max-task-regression 20");
    const review = arms?.includes("review") === true;
    const cePluginDir = v["ce-plugin-dir"] === undefined ? null : path(v["ce-plugin-dir"]);
    const cePluginVersion = v["ce-plugin-version"]?.trim() ?? null;
    if (review) {
      if (cePluginDir === null || !isDirectory(cePluginDir)) throw new Usage("--ce-plugin-dir", `--arms review needs --ce-plugin-dir <an existing directory>${cePluginDir === null ? "" : `; ${cePluginDir} is not one`}`);
      if (cePluginVersion === null || cePluginVersion === "") throw new Usage("--ce-plugin-version", "--arms review needs a nonblank --ce-plugin-version, e.g. 1.2.3");
    }
    const repoRoot = path(v["repo-root"] ?? ".");
    if (v.script !== undefined && v.script.trim() === "") throw new Usage("--script", "--script must not be blank: pass a scripted model script or omit the flag");
    const proposerScript = v["proposer-script"];
    if (proposerScript !== undefined && proposerScript.trim() === "") throw new Usage("--proposer-script", "--proposer-script must not be blank: pass a scripted proposer script or omit the flag");
    // The runner refuses credentials in the URL too, but only after evolve has recorded its argv in
    // runtime-provenance.json (0644, a CI artifact): refused here, before anything is written.
    if (v["base-url"] !== undefined && carriesUserinfo(v["base-url"])) {
      throw new Usage("--base-url", "--base-url must not carry credentials (user:password@): pass the key with --anthropic-api-key, --openai-api-key or their WFBENCH_* environment variables");
    }
    const unsafeNoBwrap = v["unsafe-no-bwrap"] === true;
    if (unsafeNoBwrap) {
      if (v.apply === true) throw new Usage("--unsafe-no-bwrap", "--unsafe-no-bwrap cannot be combined with --apply: an unsandboxed run may not change the working tree");
      if (context.ci) throw new Usage("--unsafe-no-bwrap", "--unsafe-no-bwrap is refused when CI is set: CI runs sandboxed");
      if (arms === null || arms.length !== 1 || arms[0] !== "review") throw new Usage("--unsafe-no-bwrap", "--unsafe-no-bwrap is allowed only with --arms review");
    }
    return {
      ok: true,
      help: false,
      options: {
        tasks: path(v.tasks),
        model,
        proposerModel,
        runs,
        workers,
        generations,
        arms,
        seedResults: v["seed-results"] === undefined ? null : path(v["seed-results"]),
        initialOverlay: v["initial-overlay"] === undefined ? null : path(v["initial-overlay"]),
        learnings: path(v.learnings ?? "learnings.jsonl"),
        apply: v.apply === true,
        outRoot: path(v["out-root"] ?? `results/wfevolve-${timestamp(context.now)}`),
        claudeBin: v["claude-bin"] === undefined ? null : path(v["claude-bin"]),
        effort: effort as (typeof EVOLVE_EFFORTS)[number],
        timeoutS,
        maxRuntimeS,
        baseUrl: v["base-url"] ?? null,
        anthropicApiKey: v["anthropic-api-key"] ?? null,
        authToken: v["auth-token"] ?? null,
        openaiApiKey: v["openai-api-key"] ?? null,
        promotion: { metric: v["promotion-metric"] ?? "cost_usd", minRuns, minImprovementPct, maxTaskRegressionPct },
        includeExpensive: v["include-expensive"] === true,
        cePluginDir,
        cePluginVersion,
        unsafeNoBwrap,
        repoRoot,
        script: v.script === undefined ? null : path(v.script),
        proposerScript: proposerScript === undefined ? null : path(proposerScript),
      },
    };
  } catch (error) {
    if (error instanceof Usage) return { ok: false, error: { flag: error.flag, message: error.message } };
    throw error;
  }
}
