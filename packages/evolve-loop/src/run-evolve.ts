import { EVOLVE_USAGE, parseEvolveArgs } from "./parse-evolve-args.js";
import { startRuntimeBudget } from "./runtime-budget.js";

/** Exit codes of `wfbench evolve`, as `wfbench run`: 0 ok, 1 failure or refusal, 2 bad usage. */
export const EVOLVE_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** What an app hands the evolve entry point: the process edge (environment, output, clocks), never read here directly. */
export interface EvolveHost {
  readonly cwd: string;
  /** The environment variables evolve reads: CI, EVENTBRIDGE_INSTANCE_WINDOW_SECONDS, EVENTBRIDGE_STOP_RESERVE_SECONDS. */
  readonly env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** A monotonic clock in ms (performance.now()). */
  monotonicNowMs(): number;
  /** The text of /proc/uptime, or null when unreadable. */
  readUptime(): string | null;
  now(): Date;
}

/**
 * Runs one `wfbench evolve` invocation and returns its exit code. Reads the monotonic clock and /proc/uptime first,
 * so the runtime cap and its clock describe one instant; refuses bad flags (2) and a cap with under 600 s left (1)
 * before any paid step.
 */
export function runEvolve(argv: readonly string[], host: EvolveHost): number {
  const startMs = host.monotonicNowMs();
  const uptimeText = host.readUptime();
  const parsed = parseEvolveArgs(argv, {
    cwd: host.cwd,
    now: host.now(),
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
  // The flags are whole; the proposer, sweep child and gate (reference §9.1) are not part of this build yet.
  host.stderr(`wfbench evolve: flags accepted (${options.generations} generation(s), runtime cap ${options.maxRuntimeS === null ? "none" : `${options.maxRuntimeS} s`}); not available yet: the proposer session, sweep child and promotion gate of the loop are not part of this build\n`);
  return EVOLVE_EXIT.failed;
}
