import { isAbsolute, join, resolve } from "node:path";
import { parseArgs as nodeParseArgs } from "node:util";
import { CANDIDATE_ARMS, DEFAULT_ARMS, HOST_UNSAFE_ARMS, KNOWN_ARMS, SUPPORTED_ARMS, isCandidateArm, isCeArm, isSupportedArm, type Arm } from "@wfbench/result-row";
import { isExactPluginVersion } from "@wfbench/plugin-snapshot";
import { PROMOTION_METRICS, type PromotionMetric } from "@wfbench/promotion-gate";
import { parseShardSpec, type ShardSpec } from "@wfbench/sweep";

/** Effort levels the CLI accepts (reference §2.1). */
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
/** Largest `--workers` (reference Appendix A, MAX_WORKERS). */
export const MAX_WORKERS = 8;
/** The demo suite's model name; the scripted model answers under it. */
export const DEMO_MODEL = "claude-sonnet-4-5";

/** Parsed, validated runner options. */
export interface RunnerOptions {
  readonly help: boolean;
  readonly tasks: string;
  readonly arms: readonly Arm[];
  readonly repeats: number;
  readonly out: string;
  readonly workers: number;
  readonly model: string;
  readonly effort: (typeof EFFORTS)[number];
  readonly timeoutS: number;
  readonly script: string;
  /** True when --script was given: the operator chose the scripted model for this suite. */
  readonly scriptExplicit: boolean;
  readonly oracles: string;
  readonly includeExpensive: boolean;
  /** True when --arms was given; with an overlay and no --arms the sweep runs exactly the overlay's required arms. */
  readonly armsExplicit: boolean;
  /** `--candidate-overlay`: the overlay directory for candidate arms, or null. */
  readonly candidateOverlay: string | null;
  /** The implementation gate's thresholds (reference §2.1 `--promotion-*`). */
  /** `--base-url`: an Anthropic-compatible endpoint, or null (scripted demo model, or the public API with a key). */
  readonly baseUrl: string | null;
  /** `--anthropic-api-key` (sent as x-api-key) / `--auth-token` (sent as Authorization: Bearer); null when not given. */
  readonly anthropicApiKey: string | null;
  readonly authToken: string | null;
  /** `--openai-api-key`: an OpenAI-compatible provider's key (env WFBENCH_OPENAI_API_KEY); null when not given. */
  readonly openaiApiKey: string | null;
  /** `--outage-streak`: consecutive systemic failures (reference §5.7, canonical order, across tasks) that stop the sweep; 0 disables. */
  readonly outageStreak: number;
  /** `--claude-bin`: a user-supplied Claude Code CLI (absolute), or null for the pinned one. */
  readonly claudeBin: string | null;
  /** `--proposer-model`: provenance only, recorded in rows, report.md and promotion.json. */
  readonly proposerModel: string | null;
  readonly promotion: {
    readonly metric: PromotionMetric;
    readonly minRuns: number;
    readonly minImprovementPct: number;
    readonly maxTaskRegressionPct: number;
  };
  /** `--shard k/N`: run only shard k of N (1-based), or null for the whole sweep. */
  readonly shard: ShardSpec | null;
  /** `--ce-plugin-dir` (absolute) and `--ce-plugin-version`: both given iff a CE arm is selected (reference §2.1). */
  readonly cePluginDir: string | null;
  readonly cePluginVersion: string | null;
  /** `--unsafe-no-bwrap` or UNSAFE_NO_BWRAP=1: the host-unsafe backend, review arms only, never under CI. */
  readonly unsafeNoBwrap: boolean;
  /** `--reuse-results`: an earlier sweep's output directory whose comparator rows may be reused (reference §5.6), or null. */
  readonly reuseResults: string | null;
  /** Hidden `--task-bindings-json`: a JSON file of the evolve driver's task pins, or null. */
  readonly taskBindingsJson: string | null;
  /** Hidden `--promotion-target-bases-json`: a JSON file of the overlay destinations' committed digests, or null. */
  readonly promotionTargetBasesJson: string | null;
  /** `--resume`: `out` is an interrupted sweep's directory to continue in place (same flags); false for a new sweep. */
  readonly resume: boolean;
}

/** A refused command line: the flag and how to fix it. */
export interface UsageError {
  readonly flag: string;
  readonly message: string;
}

/** Result of parsing. */
export type ParseArgsResult = { readonly ok: true; readonly value: RunnerOptions } | { readonly ok: false; readonly error: UsageError };

/** What the parser needs from the environment (main.ts supplies it). */
export interface ParseArgsContext {
  /** The workspace root: defaults are resolved against it. */
  readonly root: string;
  /** The working directory: relative flags are resolved against it. */
  readonly cwd: string;
  readonly now: Date;
  /** The environment's CI variable: any non-empty value forbids --unsafe-no-bwrap. */
  readonly ci?: string | undefined;
  /** The environment's UNSAFE_NO_BWRAP variable: "1" asks for the host-unsafe backend like the flag. */
  readonly unsafeNoBwrapEnv?: string | undefined;
}

/** The runner's usage text. */
export const USAGE = `Usage: wfbench run [flags]   (from a checkout: npx wfbench run [flags], or npx nx run runner:bench [-- flags])

With no flags it runs the embedded offline demo suite (tasks/demo.yaml) against the scripted demo model.

  --tasks <file>        task YAML (default: tasks/demo.yaml)
  --arms <arm...>       arms in order: ${SUPPORTED_ARMS.join(", ")} (default: ${DEFAULT_ARMS.join(" ")})
  --repeats <n>         repeats per task and arm, 1..100 (default 1; alias --runs)
  --out <dir>           output directory, must be new or empty (default: runs/<UTC timestamp>)
  --workers <n>         cells run at once, packed across tasks, 1..${MAX_WORKERS} (default 1)
  --model <name>        a named, versioned model (default: ${DEMO_MODEL}, served by the scripted model)
  --effort <level>      ${EFFORTS.join(" | ")} (default: xhigh)
  --timeout <seconds>   per session, verify and oracle (default 5400)
  --script <file>       scripted-model trajectories (default: tasks/demo/scripted-model.yaml); given explicitly, the
                        scripted model serves any suite
  --oracles <dir>       hidden oracle root (default: oracles/)
  --base-url <url>      an Anthropic-compatible endpoint (https, or http to 127.0.0.1/::1/localhost); needs a key
  --anthropic-api-key <key>  upstream key sent as x-api-key (default: env WFBENCH_ANTHROPIC_API_KEY)
  --auth-token <token>  upstream key sent as Authorization: Bearer (env WFBENCH_AUTH_TOKEN is sent as x-api-key)
                        without --base-url or a key flag the demo suite (or --script) stays scripted; a real upstream
                        gets a 1-token canary before the first cell
  --openai-api-key <key>  OpenAI route for OpenAI model ids (gpt-*, o<digit>*, openai/*): the gateway translates to
                        <base-url or https://api.openai.com>/v1/chat/completions (default: env WFBENCH_OPENAI_API_KEY)
  --claude-bin <path>   a Claude Code CLI to run instead of the pinned one; it must answer --version with a
                        supported version (its version is recorded in report.md)
  --proposer-model <name>  provenance only: the model that proposed the overlay (recorded in rows and report.md)
  --outage-streak <n>   stop starting cells after n consecutive session/infra/cleanup/review-evidence failures in
                        (task, run, arm) order, across tasks; report "Sweep aborted", exit 1 (default 5; 0 disables)
  --shard <k/N>         run only shard k of N (1-based): cells are assigned by a stable hash of (task, arm, run);
                        each shard writes its own --out, and \`wfbench merge OUT SHARD_DIR...\` joins them (a
                        candidate sweep's promotion.json is written only by the merge)
  --include-expensive   include tasks marked expensive: true
  --ce-plugin-dir <dir>       the Compound Engineering plugin for the ce_* arms (copied, checked and frozen, then
                        mounted read-only); required with any ce_* arm
  --ce-plugin-version <X.Y.Z> the exact version its .claude-plugin/plugin.json declares; required with any ce_* arm
  --unsafe-no-bwrap     (also env UNSAFE_NO_BWRAP=1) run review arms (${HOST_UNSAFE_ARMS.join(", ")}) directly on the
                        host: NO security boundary; refused under CI and for any other arm
  --candidate-overlay <dir>   skill overlay (.claude/skills/<skill>/*.md) for the candidate_* arms; without --arms the
                        sweep runs exactly the pairs it requires (a work overlay: workflow candidate_workflow
                        workflow_direct candidate_workflow_direct) and writes promotion.json
  --promotion-metric <m>      ${PROMOTION_METRICS.join(" | ")} (default cost_usd)
  --promotion-min-runs <n>    valid paired runs per task the gate needs, 1..100 (default 3)
  --promotion-min-improvement <pct>      median efficiency gain to promote (default 5.0)
  --promotion-max-task-regression <pct>  largest per-task efficiency regression (default 20.0)
  --resume <dir>        continue an interrupted sweep in place with the same flags: its rows are kept, a partial
                        last line left by a kill is dropped, only missing cells run; refuses any changed binding
                        (not with --out or --reuse-results)
  --reuse-results <dir>  an earlier sweep's output directory: its still-valid comparator rows (same model, effort,
                        runtime digest, task, oracle and skills; at most 90 days old) are copied instead of paid for,
                        keeping one paid cell per arm; must not be --out
  --help                this text

Exit codes: 0 ok, 1 outage or unusable arm, 2 bad usage or input, 130 cancelled.`;

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/gu, "").replace(/\.\d+Z$/u, "Z");
}

function parseDecimal(flag: string, raw: string, fix: string): number | UsageError {
  if (!/^\d+(?:\.\d+)?$/u.test(raw)) return { flag, message: `${flag} needs a non-negative number (percent), got ${JSON.stringify(raw)}: ${fix}` };
  const value = Number(raw);
  // A 400-digit percentage is Infinity, which no digest or gate can record: bounded here, at the flag.
  if (!Number.isFinite(value) || value > MAX_PERCENT_FLAG) return { flag, message: `${flag} must be at most ${MAX_PERCENT_FLAG} (percent), got ${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}: ${fix}` };
  return value;
}

const MAX_PERCENT_FLAG = 1_000_000;

function parseInteger(flag: string, raw: string | undefined, min: number, max: number, fix: string): number | UsageError {
  if (raw === undefined || !/^\d+$/u.test(raw)) return { flag, message: `${flag} needs a whole number, got ${JSON.stringify(raw ?? "")}: ${fix}` };
  const value = Number(raw);
  if (value < min || value > max) return { flag, message: `${flag} must be between ${min} and ${max}, got ${value}: ${fix}` };
  return value;
}

/** Refuses model ids that float (reference §2.1): blank, or ending in `auto`/`latest` at a word boundary. */
export function checkModelName(model: string): string | null {
  if (model.trim() === "") return "--model must not be blank: pass a named, versioned model such as claude-sonnet-4-5";
  if (/(?:^|[-/@:])(?:auto|latest)$/iu.test(model.trim())) return `--model ${JSON.stringify(model)} floats: pass a pinned, versioned model id (not *-latest or auto)`;
  return null;
}

// Every flag the runner takes; `hint` says what a value looks like, for the refusal of a missing or dash-led value.
const FLAGS = {
  tasks: { type: "string", hint: "a task YAML file" },
  arms: { type: "string", hint: "one or more arm names" },
  repeats: { type: "string", hint: "a whole number 1..100" },
  runs: { type: "string", hint: "a whole number 1..100" },
  out: { type: "string", hint: "an output directory" },
  workers: { type: "string", hint: `a whole number 1..${MAX_WORKERS}` },
  model: { type: "string", hint: "a named, versioned model id" },
  effort: { type: "string", hint: EFFORTS.join(" | ") },
  timeout: { type: "string", hint: "a whole number of seconds" },
  script: { type: "string", hint: "a scripted-model YAML file" },
  oracles: { type: "string", hint: "the oracle root directory" },
  "candidate-overlay": { type: "string", hint: "an overlay directory" },
  "base-url": { type: "string", hint: "an http(s) URL" },
  "anthropic-api-key": { type: "string", hint: "an API key" },
  "auth-token": { type: "string", hint: "a bearer token" },
  "openai-api-key": { type: "string", hint: "an API key" },
  "claude-bin": { type: "string", hint: "the path of a Claude Code CLI executable" },
  "proposer-model": { type: "string", hint: "a named, versioned model id" },
  "outage-streak": { type: "string", hint: "a whole number (0 disables the breaker)" },
  "promotion-metric": { type: "string", hint: PROMOTION_METRICS.join(" | ") },
  "promotion-min-runs": { type: "string", hint: "a whole number 1..100" },
  "promotion-min-improvement": { type: "string", hint: "a non-negative number (percent)" },
  "promotion-max-task-regression": { type: "string", hint: "a non-negative number (percent)" },
  shard: { type: "string", hint: "k/N, e.g. 1/3" },
  "reuse-results": { type: "string", hint: "an earlier sweep's output directory" },
  resume: { type: "string", hint: "the interrupted sweep's output directory" },
  // Hidden (not in USAGE): written by the evolve driver, never by hand.
  "task-bindings-json": { type: "string", hint: "a JSON file of task bindings" },
  "promotion-target-bases-json": { type: "string", hint: "a JSON file mapping overlay targets to sha256" },
  "include-expensive": { type: "boolean", hint: "" },
  "ce-plugin-dir": { type: "string", hint: "the CE plugin directory" },
  "ce-plugin-version": { type: "string", hint: "an exact version such as 3.23.1" },
  "unsafe-no-bwrap": { type: "boolean", hint: "" },
  help: { type: "boolean", short: "h", hint: "" },
} as const satisfies Record<string, { type: "string" | "boolean"; short?: string; hint: string }>;
type FlagName = keyof typeof FLAGS;
const NODE_OPTIONS = Object.fromEntries(
  Object.entries(FLAGS).map(([name, spec]) => [name, "short" in spec ? { type: spec.type, short: spec.short } : { type: spec.type }]),
) as Record<string, { type: "string" | "boolean"; short?: string }>;

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

// node:util.parseArgs refuses with English prose; the refusal here names the flag and the fix in this CLI's words.
function fromNodeError(error: unknown): UsageError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(-{1,2}[^' ]+)/u.exec(message)?.[1] ?? "argv";
  const name = flag.replace(/^-+/u, "");
  const hint = isFlagName(name) ? FLAGS[name].hint : "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return { flag, message: `unknown argument ${JSON.stringify(flag)}: see --help for the flags` };
  if (/does not take an argument/u.test(message)) return { flag, message: `${flag} is a switch and takes no value: write ${flag} alone` };
  if (/ambiguous/u.test(message)) return { flag, message: `${flag} needs ${hint}, got a value starting with "-": pass ${hint} (or write ${flag}=<value> if the dash is meant)` };
  if (/argument missing/u.test(message)) return { flag, message: `${flag} needs a value (${hint}): see --help` };
  return { flag, message: `${message}: see --help` };
}

/** Splits argv into flag values with node:util.parseArgs; `--arms` also takes the bare words that follow it. */
function collectFlags(argv: readonly string[]): { values: Record<string, string[]>; switches: Set<string> } | UsageError {
  let tokens: NonNullable<ReturnType<typeof nodeParseArgs>["tokens"]>;
  try {
    tokens = nodeParseArgs({ args: [...argv], options: NODE_OPTIONS, strict: true, allowPositionals: true, tokens: true }).tokens;
  } catch (error) {
    return fromNodeError(error);
  }
  const values: Record<string, string[]> = {};
  const switches = new Set<string>();
  let listOwner: string | null = null;
  for (const token of tokens) {
    if (token.kind === "option-terminator") return { flag: "--", message: "unexpected \"--\": this runner takes no positional arguments; see --help" };
    if (token.kind === "positional") {
      // `--arms a b c`: the words after --arms (and no other flag) extend its list.
      if (listOwner === null) return { flag: token.value, message: `unexpected argument ${JSON.stringify(token.value)}: every value follows its flag (e.g. --tasks ${token.value}); see --help` };
      (values[listOwner] as string[]).push(...token.value.split(","));
      continue;
    }
    listOwner = null;
    const name = token.name === "runs" ? "repeats" : token.name;
    const flag = `--${name}`;
    if (FLAGS[token.name as FlagName].type === "boolean") {
      switches.add(name);
      continue;
    }
    if (values[flag] !== undefined) return { flag, message: `${flag} given twice${token.name === "runs" ? " (--runs is --repeats)" : ""}: pass it once` };
    const raw = token.value ?? "";
    values[flag] = name === "arms" ? raw.split(",") : [raw];
    if (name === "arms" && token.inlineValue !== true) listOwner = flag;
  }
  for (const [flag, list] of Object.entries(values)) {
    const filtered = list.filter((v) => v !== "");
    if (filtered.length === 0) return { flag, message: `${flag} needs a value: see --help` };
    values[flag] = filtered;
  }
  return { values, switches };
}

/**
 * Parses the runner's argv (no environment access; the caller hands in root, cwd and the clock). Every refusal names
 * the flag and the fix. Trusts nothing in argv.
 */
export function parseArgs(argv: readonly string[], context: ParseArgsContext): ParseArgsResult {
  const collected = collectFlags(argv);
  if ("flag" in collected) return { ok: false, error: collected };
  const { values, switches } = collected;
  const help = switches.has("help");
  const includeExpensive = switches.has("include-expensive");
  const one = (flag: string): string | undefined => values[flag]?.[0];
  const path = (flag: string, fallback: string): string => {
    const given = one(flag);
    return given === undefined ? join(context.root, fallback) : isAbsolute(given) ? given : resolve(context.cwd, given);
  };

  const arms: Arm[] = [];
  // With an overlay and no --arms, the sweep derives the arms from the overlay (it must be read first).
  const requested = values["--arms"] ?? (values["--candidate-overlay"] === undefined ? DEFAULT_ARMS : []);
  for (const arm of requested) {
    if (!isSupportedArm(arm)) {
      const knownArm = (KNOWN_ARMS as readonly string[]).includes(arm);
      return {
        ok: false,
        error: { flag: "--arms", message: knownArm ? `--arms: arm ${arm} is not supported by this runner yet: choose from ${SUPPORTED_ARMS.join(", ")}` : `--arms: unknown arm ${JSON.stringify(arm)}: choose from ${SUPPORTED_ARMS.join(", ")}` },
      };
    }
    if (arms.includes(arm)) return { ok: false, error: { flag: "--arms", message: `--arms: arm ${arm} listed twice: list each arm once` } };
    arms.push(arm);
  }
  const candidateOverlay = one("--candidate-overlay") === undefined ? null : path("--candidate-overlay", "");
  const armsExplicit = values["--arms"] !== undefined;
  const candidates = arms.filter(isCandidateArm);
  // Reference §2.1: candidate arms need an overlay, an overlay needs a candidate arm, each candidate its incumbent.
  if (candidates.length > 0 && candidateOverlay === null) return { ok: false, error: { flag: "--arms", message: `--arms: ${candidates.join(", ")} need --candidate-overlay <dir>: pass the overlay or drop the candidate arms` } };
  if (candidateOverlay !== null && armsExplicit && candidates.length === 0) return { ok: false, error: { flag: "--candidate-overlay", message: "--candidate-overlay needs at least one candidate_* arm in --arms: add them or omit --arms to run the overlay's required arms" } };
  for (const candidate of candidates) {
    const incumbent = CANDIDATE_ARMS[candidate];
    if (!arms.includes(incumbent)) return { ok: false, error: { flag: "--arms", message: `--arms: ${candidate} needs its incumbent ${incumbent} in --arms: list ${incumbent} before it` } };
  }
  // Reference §2.1: the CE flags come together, and only with a CE arm (an overlay run without --arms may add ce_review).
  const cePluginDir = one("--ce-plugin-dir") === undefined ? null : path("--ce-plugin-dir", "");
  const cePluginVersion = one("--ce-plugin-version") ?? null;
  const ceArms = arms.filter(isCeArm);
  if (ceArms.length > 0 && cePluginDir === null) return { ok: false, error: { flag: "--ce-plugin-dir", message: `--arms ${ceArms.join(" ")} needs --ce-plugin-dir <dir>: pass the Compound Engineering plugin checkout (and --ce-plugin-version), or drop the ce_* arms` } };
  if ((ceArms.length > 0 || cePluginDir !== null) && cePluginVersion === null) return { ok: false, error: { flag: "--ce-plugin-version", message: "--ce-plugin-version is required with the CE plugin: pass the exact version its .claude-plugin/plugin.json declares, e.g. --ce-plugin-version 3.23.1" } };
  if (cePluginVersion !== null && !isExactPluginVersion(cePluginVersion)) return { ok: false, error: { flag: "--ce-plugin-version", message: `--ce-plugin-version ${JSON.stringify(cePluginVersion)} is not an exact semantic version: pass e.g. 3.23.1 (no range, no v prefix)` } };
  if (cePluginVersion !== null && cePluginDir === null) return { ok: false, error: { flag: "--ce-plugin-dir", message: "--ce-plugin-version needs --ce-plugin-dir <dir>: pass the plugin checkout too" } };
  if (cePluginDir !== null && ceArms.length === 0 && armsExplicit) return { ok: false, error: { flag: "--ce-plugin-dir", message: "--ce-plugin-dir is only used by the ce_* arms: add ce_workflow, ce_workflow_direct or ce_review to --arms, or drop the CE flags" } };
  if (cePluginDir !== null && !armsExplicit && candidateOverlay === null) return { ok: false, error: { flag: "--ce-plugin-dir", message: "--ce-plugin-dir is only used by the ce_* arms: pass --arms with ce_workflow, ce_workflow_direct or ce_review" } };
  // Reference §6.8: host-unsafe is an explicit local choice for review arms only; CI never gets it.
  const unsafeNoBwrap = switches.has("unsafe-no-bwrap") || context.unsafeNoBwrapEnv === "1";
  const unsafeFlag = switches.has("unsafe-no-bwrap") ? "--unsafe-no-bwrap" : "UNSAFE_NO_BWRAP=1";
  if (unsafeNoBwrap && context.ci !== undefined && context.ci !== "") return { ok: false, error: { flag: "--unsafe-no-bwrap", message: `${unsafeFlag} is forbidden when CI is set (CI=${context.ci}): CI runs measure inside bwrap only; drop the flag (and unset UNSAFE_NO_BWRAP)` } };
  const unsafeOthers = arms.filter((arm) => !HOST_UNSAFE_ARMS.includes(arm));
  if (unsafeNoBwrap && unsafeOthers.length > 0) return { ok: false, error: { flag: "--unsafe-no-bwrap", message: `${unsafeFlag} runs review arms only (${HOST_UNSAFE_ARMS.join(", ")}), never ${unsafeOthers.join(", ")}: pass --arms with review arms only, or drop the flag to run inside bwrap` } };
  const metric = one("--promotion-metric") ?? "cost_usd";
  if (!(PROMOTION_METRICS as readonly string[]).includes(metric)) return { ok: false, error: { flag: "--promotion-metric", message: `--promotion-metric ${JSON.stringify(metric)} is not one of ${PROMOTION_METRICS.join(", ")}` } };
  const minRuns = parseInteger("--promotion-min-runs", one("--promotion-min-runs") ?? "3", 1, 100, "pass --promotion-min-runs 1 or more");
  if (typeof minRuns !== "number") return { ok: false, error: minRuns };
  const minImprovementPct = parseDecimal("--promotion-min-improvement", one("--promotion-min-improvement") ?? "5.0", "e.g. --promotion-min-improvement 5");
  if (typeof minImprovementPct !== "number") return { ok: false, error: minImprovementPct };
  const maxTaskRegressionPct = parseDecimal("--promotion-max-task-regression", one("--promotion-max-task-regression") ?? "20.0", "e.g. --promotion-max-task-regression 20");
  if (typeof maxTaskRegressionPct !== "number") return { ok: false, error: maxTaskRegressionPct };
  const repeats = parseInteger("--repeats", one("--repeats") ?? "1", 1, 100, "pass --repeats 1 or more");
  if (typeof repeats !== "number") return { ok: false, error: repeats };
  const workers = parseInteger("--workers", one("--workers") ?? "1", 1, MAX_WORKERS, `pass --workers between 1 and ${MAX_WORKERS}`);
  if (typeof workers !== "number") return { ok: false, error: workers };
  const timeoutS = parseInteger("--timeout", one("--timeout") ?? "5400", 1, 86_400, "pass --timeout in seconds, e.g. 5400");
  if (typeof timeoutS !== "number") return { ok: false, error: timeoutS };
  const outageStreak = parseInteger("--outage-streak", one("--outage-streak") ?? "5", 0, 10_000, "pass --outage-streak 0..10000 (default 5; 0 disables the breaker)");
  if (typeof outageStreak !== "number") return { ok: false, error: outageStreak };
  const model = one("--model") ?? DEMO_MODEL;
  const modelProblem = checkModelName(model);
  if (modelProblem !== null) return { ok: false, error: { flag: "--model", message: modelProblem } };
  const proposerModel = one("--proposer-model") ?? null;
  const proposerProblem = proposerModel === null ? null : checkModelName(proposerModel);
  if (proposerProblem !== null) return { ok: false, error: { flag: "--proposer-model", message: proposerProblem.replace(/^--model/u, "--proposer-model") } };
  const shardRaw = one("--shard");
  const shard = shardRaw === undefined ? null : parseShardSpec(shardRaw);
  if (shard !== null && !shard.ok) return { ok: false, error: { flag: "--shard", message: shard.message } };
  const resume = one("--resume");
  if (resume !== undefined && values["--out"] !== undefined) return { ok: false, error: { flag: "--resume", message: "--resume DIR continues DIR in place: drop --out" } };
  if (resume !== undefined && values["--reuse-results"] !== undefined) return { ok: false, error: { flag: "--resume", message: "--resume and --reuse-results do not combine: resume the sweep first, then reuse from it in a new one" } };
  const effort = one("--effort") ?? "xhigh";
  if (!(EFFORTS as readonly string[]).includes(effort)) return { ok: false, error: { flag: "--effort", message: `--effort ${JSON.stringify(effort)} is not one of ${EFFORTS.join(", ")}` } };
  return {
    ok: true,
    value: {
      help,
      tasks: path("--tasks", "tasks/demo.yaml"),
      arms,
      repeats,
      out: resume !== undefined ? path("--resume", "") : path("--out", `runs/${timestamp(context.now)}`),
      workers,
      model,
      effort: effort as RunnerOptions["effort"],
      timeoutS,
      script: path("--script", "tasks/demo/scripted-model.yaml"),
      scriptExplicit: values["--script"] !== undefined,
      oracles: path("--oracles", "oracles"),
      includeExpensive,
      armsExplicit,
      candidateOverlay,
      baseUrl: one("--base-url") ?? null,
      anthropicApiKey: one("--anthropic-api-key") ?? null,
      authToken: one("--auth-token") ?? null,
      openaiApiKey: one("--openai-api-key") ?? null,
      outageStreak,
      claudeBin: one("--claude-bin") === undefined ? null : path("--claude-bin", ""),
      proposerModel,
      promotion: { metric: metric as PromotionMetric, minRuns, minImprovementPct, maxTaskRegressionPct },
      shard: shard === null ? null : shard.value,
      cePluginDir,
      cePluginVersion,
      unsafeNoBwrap,
      reuseResults: one("--reuse-results") === undefined ? null : path("--reuse-results", ""),
      taskBindingsJson: one("--task-bindings-json") === undefined ? null : path("--task-bindings-json", ""),
      promotionTargetBasesJson: one("--promotion-target-bases-json") === undefined ? null : path("--promotion-target-bases-json", ""),
      resume: resume !== undefined,
    },
  };
}
