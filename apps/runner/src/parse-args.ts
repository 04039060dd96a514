import { isAbsolute, join, resolve } from "node:path";
import { CANDIDATE_ARMS, DEFAULT_ARMS, KNOWN_ARMS, SUPPORTED_ARMS, isCandidateArm, isSupportedArm, type Arm } from "@wfbench/result-row";
import { PROMOTION_METRICS, type PromotionMetric } from "@wfbench/promotion-gate";

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
  /** `--outage-streak`: consecutive systemic failures (reference §5.7, canonical order, across tasks) that stop the sweep. */
  readonly outageStreak: number;
  readonly promotion: {
    readonly metric: PromotionMetric;
    readonly minRuns: number;
    readonly minImprovementPct: number;
    readonly maxTaskRegressionPct: number;
  };
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
}

/** The runner's usage text. */
export const USAGE = `Usage: nx run runner:bench [-- flags]   (or node --conditions=@wfbench/source --import tsx apps/runner/src/main.ts [flags])

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
  --outage-streak <n>   stop starting cells after n consecutive session/infra/cleanup/review-evidence failures in
                        (task, run, arm) order, across tasks; report "Sweep aborted", exit 1 (default 5)
  --include-expensive   include tasks marked expensive: true
  --candidate-overlay <dir>   skill overlay (.claude/skills/<skill>/*.md) for the candidate_* arms; without --arms the
                        sweep runs exactly the pairs it requires (a work overlay: workflow candidate_workflow
                        workflow_direct candidate_workflow_direct) and writes promotion.json
  --promotion-metric <m>      ${PROMOTION_METRICS.join(" | ")} (default cost_usd)
  --promotion-min-runs <n>    valid paired runs per task the gate needs, 1..100 (default 3)
  --promotion-min-improvement <pct>      median efficiency gain to promote (default 5.0)
  --promotion-max-task-regression <pct>  largest per-task efficiency regression (default 20.0)
  --help                this text

Exit codes: 0 ok, 1 outage or unusable arm, 2 bad usage or input, 130 cancelled.`;

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/gu, "").replace(/\.\d+Z$/u, "Z");
}

function parseDecimal(flag: string, raw: string, fix: string): number | UsageError {
  if (!/^\d+(?:\.\d+)?$/u.test(raw)) return { flag, message: `${flag} needs a non-negative number (percent), got ${JSON.stringify(raw)}: ${fix}` };
  return Number(raw);
}

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

/**
 * Parses the runner's argv (no environment access; the caller hands in root, cwd and the clock). Every refusal names
 * the flag and the fix. Trusts nothing in argv.
 */
export function parseArgs(argv: readonly string[], context: ParseArgsContext): ParseArgsResult {
  const values: Record<string, string[]> = {};
  let help = false;
  let includeExpensive = false;
  const takesList = new Set(["--arms"]);
  const known = new Set([
    "--tasks", "--arms", "--repeats", "--runs", "--out", "--workers", "--model", "--effort", "--timeout", "--script", "--oracles",
    "--candidate-overlay", "--base-url", "--anthropic-api-key", "--auth-token", "--promotion-metric", "--promotion-min-runs", "--promotion-min-improvement", "--promotion-max-task-regression",
    "--outage-streak",
  ]);
  for (let i = 0; i < argv.length; i += 1) {
    let arg = argv[i] as string;
    let inline: string | undefined;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (arg === "--include-expensive") {
      includeExpensive = true;
      continue;
    }
    if (!known.has(arg)) return { ok: false, error: { flag: arg, message: `unknown argument ${JSON.stringify(arg)}: see --help for the flags` } };
    const name = arg === "--runs" ? "--repeats" : arg;
    if (values[name] !== undefined) return { ok: false, error: { flag: name, message: `${name} given twice: pass it once` } };
    const collected: string[] = [];
    if (inline !== undefined) collected.push(...(takesList.has(name) ? inline.split(",") : [inline]));
    else if (takesList.has(name)) {
      while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("--")) collected.push(...(argv[++i] as string).split(","));
    } else if (i + 1 < argv.length) collected.push(argv[++i] as string);
    const filtered = collected.filter((v) => v !== "");
    if (filtered.length === 0) return { ok: false, error: { flag: name, message: `${name} needs a value: see --help` } };
    values[name] = filtered;
  }
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
  const outageStreak = parseInteger("--outage-streak", one("--outage-streak") ?? "5", 1, 10_000, "pass --outage-streak 1 or more (default 5)");
  if (typeof outageStreak !== "number") return { ok: false, error: outageStreak };
  const model = one("--model") ?? DEMO_MODEL;
  const modelProblem = checkModelName(model);
  if (modelProblem !== null) return { ok: false, error: { flag: "--model", message: modelProblem } };
  const effort = one("--effort") ?? "xhigh";
  if (!(EFFORTS as readonly string[]).includes(effort)) return { ok: false, error: { flag: "--effort", message: `--effort ${JSON.stringify(effort)} is not one of ${EFFORTS.join(", ")}` } };
  return {
    ok: true,
    value: {
      help,
      tasks: path("--tasks", "tasks/demo.yaml"),
      arms,
      repeats,
      out: path("--out", `runs/${timestamp(context.now)}`),
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
      outageStreak,
      promotion: { metric: metric as PromotionMetric, minRuns, minImprovementPct, maxTaskRegressionPct },
    },
  };
}
