// The runner's command line: the only place that reads argv and the environment, prints, and maps errors to exit codes.
import { appendFile, readFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { extractMainTable, isBenchReportError } from "@wfbench/bench-report";
import { isCellPipelineError } from "@wfbench/cell-pipeline";
import { isDurableFsError } from "@wfbench/durable-fs";
import { isSanitizerError } from "@wfbench/clone-sanitizer";
import { isGatewayError, readGatewayEnv, resolveUpstreamSettings } from "@wfbench/litellm-gateway";
import { isOracleError } from "@wfbench/oracle-snapshot";
import { isPluginSnapshotError } from "@wfbench/plugin-snapshot";
import { redactText } from "@wfbench/redact";
import { isReportHtmlError } from "@wfbench/report-html";
import { isSandboxError } from "@wfbench/sandbox-bwrap";
// The backend without isolation is imported on purpose, from its own entry point; it is built only for --unsafe-no-bwrap.
import { UNSAFE_NO_BWRAP, createHostUnsafeBackend } from "@wfbench/sandbox-bwrap/unsafe";
import { isScriptedModelError } from "@wfbench/scripted-model";
import { isClaudeCliError } from "@wfbench/claude-cli";
import { isTaskSuiteError } from "@wfbench/task-suite";
import { isRunnerError } from "./errors.js";
import { USAGE, parseArgs } from "./parse-args.js";
import { createProgressOutput } from "./progress.js";
import { isSweepError, runSweep, type SweepEvent, type SweepOptions } from "@wfbench/sweep";
import type { RunnerOptions } from "./parse-args.js";

export const EXIT_OK = 0;
export const EXIT_OUTAGE = 1;
export const EXIT_USAGE = 2;
export const EXIT_CANCELLED = 130;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

function formatEvent(event: Exclude<SweepEvent, { kind: "warning" }>, cwd: string, upstream: string, secrets: readonly string[]): string {
  if (event.kind === "prepared") {
    const shard = event.shard == null ? "" : ` (shard ${event.shard.index}/${event.shard.count} of ${event.shard.planned} planned)`;
    return `wfbench: ${event.cells} cell(s)${shard}, Claude Code ${event.claudeVersion}, ${upstream}, output ${relative(cwd, event.outDir) || "."}`;
  }
  if (event.kind === "outage") return `[systemic-outage] ${event.streak} consecutive session/infra/cleanup/review-evidence failures ending at [${event.task}][${event.arm}][run ${event.run}]: no further cell starts (${event.inFlight} still running will be recorded); the report is marked aborted`;
  if (event.kind === "heartbeat") {
    const running = event.running.map((cell) => `[${cell.task}][${cell.arm}][run ${cell.run}]`).join(" ");
    return `[heartbeat] ${Math.floor(event.elapsedMs / 60_000)}m elapsed, ${event.done}/${event.total} cell(s) done, running: ${running === "" ? "none" : running}`;
  }
  if (event.kind === "cell-start") return `[${event.task}][${event.arm}][run ${event.run}] starting (${event.index}/${event.total}, ${Math.floor(event.elapsedMs / 60_000)}m elapsed)`;
  const row = event.row;
  const infra = row.error_kind === "infra-error" || row.error_kind === "cleanup-failure";
  const cost = infra || row.cost_usd === null ? "n/a" : `$${row.cost_usd.toFixed(4)}`;
  const took = infra || row.duration_s === null ? "n/a" : `${row.duration_s}s`;
  const line = `[${row.task}][${row.arm}][run ${row.run}] resolved=${row.resolved ? "True" : "False"} quality=${typeof row["review_weighted_f1"] === "number" ? row["review_weighted_f1"].toFixed(3) : "n/a"} in=${String(row.input_tokens)} out=${String(row.output_tokens)} cost=${cost} took=${took} error_kind=${row.error_kind ?? "none"} skill_invoked=${String(row.skill_invoked)} wire_requests=${String(row.wire_requests)}`;
  if (row.error_detail === null || row.error_kind === null) return line;
  const detail = typeof row.error_detail === "string" ? row.error_detail : JSON.stringify(row.error_detail);
  return `${line}\n[${row.task}][${row.arm}][run ${row.run}] detail: ${redactText(detail, secrets).replace(/\n/gu, " \u23ce ").slice(0, 1200)}`;
}

// GitHub Actions shows this file on the job page; the table is appended (other steps write there too), never truncated,
// and a summary that cannot be written costs a warning, not the sweep's outcome.
async function appendStepSummary(path: string | undefined, reportPath: string): Promise<void> {
  if (path === undefined || path === "") return;
  try {
    const table = extractMainTable(await readFile(reportPath, "utf8"));
    if (table === null) return;
    await appendFile(path, `## wfbench\n\n${table}\n`, "utf8");
  } catch (error) {
    process.stderr.write(`wfbench runner: warning: could not append the report table to GITHUB_STEP_SUMMARY ${path}: ${(error as Error).message}\n`);
  }
}

/** The sweep's own input: the parsed flags minus what only the command line knows (help, upstream keys). */
function toSweepOptions(flags: RunnerOptions, runtimeDigestOverride: string | undefined, pins: { taskBindings: unknown; promotionTargetBases: unknown }): SweepOptions {
  return {
    tasks: flags.tasks,
    arms: flags.arms,
    armsExplicit: flags.armsExplicit,
    repeats: flags.repeats,
    out: flags.out,
    workers: flags.workers,
    model: flags.model,
    effort: flags.effort,
    timeoutS: flags.timeoutS,
    script: flags.script,
    oracles: flags.oracles,
    includeExpensive: flags.includeExpensive,
    candidateOverlay: flags.candidateOverlay,
    outageStreak: flags.outageStreak,
    claudeBin: flags.claudeBin,
    proposerModel: flags.proposerModel,
    promotion: flags.promotion,
    shard: flags.shard,
    cePluginDir: flags.cePluginDir,
    cePluginVersion: flags.cePluginVersion,
    unsafeNoBwrap: flags.unsafeNoBwrap,
    reuseResults: flags.reuseResults,
    runtimeDigestOverride: runtimeDigestOverride === undefined || runtimeDigestOverride === "" ? null : runtimeDigestOverride,
    resume: flags.resume,
    taskBindings: pins.taskBindings,
    promotionTargetBases: pins.promotionTargetBases,
  };
}

function isEnvironmentError(error: unknown): boolean {
  return (
    isSandboxError(error) || isPluginSnapshotError(error) || isSanitizerError(error) || isOracleError(error) || isGatewayError(error) || isScriptedModelError(error) || isClaudeCliError(error) || isBenchReportError(error) || isDurableFsError(error) || isCellPipelineError(error) || isTaskSuiteError(error) || isReportHtmlError(error)
  );
}

/** `wfbench run`: the sweep. Reads argv (without the subcommand) and the environment, prints, returns the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const cwd = process.cwd();
  const parsed = parseArgs(argv, { root: ROOT, cwd, now: new Date(), ci: process.env["CI"], unsafeNoBwrapEnv: process.env["UNSAFE_NO_BWRAP"] });
  if (!parsed.ok) {
    process.stderr.write(`wfbench runner: ${parsed.error.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (parsed.value.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  const gatewayEnv = readGatewayEnv(process.env);
  if (!gatewayEnv.ok) {
    process.stderr.write(`wfbench runner: ${gatewayEnv.error.message}\n`);
    return EXIT_USAGE;
  }
  const flags = parsed.value;
  const pins = { taskBindings: null as unknown, promotionTargetBases: null as unknown };
  for (const [flag, file, key] of [["--task-bindings-json", flags.taskBindingsJson, "taskBindings"], ["--promotion-target-bases-json", flags.promotionTargetBasesJson, "promotionTargetBases"]] as const) {
    if (file === null) continue;
    try {
      pins[key] = JSON.parse(await readFile(file, "utf8")) as unknown;
    } catch (error) {
      process.stderr.write(`wfbench runner: ${flag} ${file}: not a readable JSON file (${(error as Error).message}): pass the file the evolve driver wrote\n`);
      return EXIT_USAGE;
    }
  }
  const runtimeDigestOverride = process.env["WFBENCH_RUNTIME_DIGEST"];
  if (runtimeDigestOverride !== undefined && runtimeDigestOverride !== "" && !/^[0-9a-f]{64}$/u.test(runtimeDigestOverride)) {
    process.stderr.write("wfbench runner: WFBENCH_RUNTIME_DIGEST must be 64 lower-case hex characters (the evolve driver's runtime digest): unset it to let the sweep compute its own\n");
    return EXIT_USAGE;
  }
  const upstream = resolveUpstreamSettings({
    flags: { baseUrl: flags.baseUrl, anthropicApiKey: flags.anthropicApiKey, authToken: flags.authToken, openaiApiKey: flags.openaiApiKey },
    env: { anthropicApiKey: gatewayEnv.value.anthropicApiKey, anthropicKeyIsAuthToken: gatewayEnv.value.anthropicKeyIsAuthToken, openAiApiKey: gatewayEnv.value.openAiApiKey },
    models: [flags.model],
    scripted: flags.scriptExplicit ? "script-flag" : flags.tasks === join(ROOT, "tasks/demo.yaml") ? "demo-suite" : null,
  });
  if (!upstream.ok) {
    process.stderr.write(`wfbench runner: ${upstream.error.message}\n`);
    return EXIT_USAGE;
  }
  const secrets = upstream.value.kind === "scripted" ? [] : [upstream.value.apiKey];
  const upstreamLabel = upstream.value.kind === "scripted" ? "scripted demo model" : `upstream ${upstream.value.kind} ${upstream.value.baseUrl}`;
  const controller = new AbortController();
  const onSignal = (name: string): void => {
    process.stderr.write(`wfbench runner: ${name} received, stopping the running cell and writing the report\n`);
    controller.abort();
  };
  process.once("SIGINT", () => onSignal("SIGINT"));
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  const home = process.env["HOME"];
  let hostUnsafeBackend: ReturnType<typeof createHostUnsafeBackend> | null = null;
  if (flags.unsafeNoBwrap) {
    try {
      hostUnsafeBackend = createHostUnsafeBackend({ acknowledge: UNSAFE_NO_BWRAP, ci: process.env["CI"], applyMode: false });
    } catch (error) {
      process.stderr.write(`wfbench runner: ${(error as Error).message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write("wfbench runner: WARNING: --unsafe-no-bwrap: every process of every cell runs directly on this host as this user, with no isolation of any kind (the read-only workspace is only emulated with file modes). This is NOT a security boundary; rows say sandbox_backend host-unsafe.\n");
  }
  const progress = createProgressOutput(process.stdout);
  try {
    const summary = await runSweep({
      options: toSweepOptions(flags, runtimeDigestOverride, pins),
      upstream: upstream.value,
      homeDir: home === undefined || home === "" ? homedir() : home,
      tmpDir: tmpdir(),
      pid: process.pid,
      signal: controller.signal,
      ...(hostUnsafeBackend === null ? {} : { hostUnsafeBackend }),
      onEvent: (event) => {
        if (event.kind === "warning") {
          process.stderr.write(`wfbench runner: warning: ${redactText(event.message, secrets)}\n`);
          return;
        }
        progress.line(formatEvent(event, cwd, upstreamLabel, secrets));
        if (event.kind === "prepared") progress.start(event.cells);
        if (event.kind === "cell-end") progress.advance();
      },
      nodePath: process.execPath,
    });
    progress.stop();
    const show = (path: string): string => relative(cwd, path) || ".";
    process.stdout.write(
      [
        "",
        `Done in ${(summary.elapsedMs / 1000).toFixed(1)} s: ${summary.rows} row(s), sweep ${summary.status}.`,
        `  results: ${show(summary.resultsPath)}`,
        `  report:  ${show(summary.reportPath)}`,
        `  transcripts, patches, gateway-usage.jsonl: ${show(join(summary.outDir, "."))}/`,
        ...(summary.promotion === null
          ? []
          : [`  promotion: ${show(summary.promotion.path)} (${summary.promotion.decisions.map((d) => `${d.candidateArm}: ${d.decision}`).join(", ")})`]),
        "",
      ].join("\n"),
    );
    await appendStepSummary(process.env["GITHUB_STEP_SUMMARY"], summary.reportPath);
    for (const arm of summary.health) {
      const reasons = arm.reasons.length === 0 ? "" : `; reasons ${arm.reasons.join(", ")}`;
      process.stdout.write(`[health] ${arm.arm}: ${arm.status} (fresh ${arm.freshAttempts}, admissible ${arm.admissible}, execution failures ${arm.executionFailures}, evidence failures ${arm.evidenceFailures}${reasons})\n`);
    }
    if (summary.outage !== null) return EXIT_OUTAGE;
    if (summary.status === "cancelled") return EXIT_CANCELLED;
    if (summary.unusableArms.length > 0) {
      for (const arm of summary.unusableArms) {
        process.stderr.write(`wfbench runner: arm ${arm} produced no usable measurement this sweep. cause=undetermined — read error_kind and error_detail of its rows in results.jsonl and the transcripts before trusting any comparison with it\n`);
      }
      return EXIT_OUTAGE;
    }
    return EXIT_OK;
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted) {
      process.stderr.write(`wfbench runner: cancelled (${redactText((error as Error).message, secrets)})\n`);
      return EXIT_CANCELLED;
    }
    // A --claude-bin the resolver refuses is the operator's input, not a broken install.
    if ((isRunnerError(error) && error.code === "RUNNER_BAD_INPUT") || (isSweepError(error) && error.code === "SWEEP_BAD_INPUT") || (isClaudeCliError(error) && flags.claudeBin !== null && error.code !== "CLAUDE_CLI_NOT_EXEC_ONLY")) {
      process.stderr.write(`wfbench runner: ${redactText(error.message, secrets)}\n`);
      return EXIT_USAGE;
    }
    if (isRunnerError(error) || isSweepError(error) || isEnvironmentError(error)) {
      const code = (error as Error & { code: string }).code;
      process.stderr.write(`wfbench runner: ${code}: ${redactText((error as Error).message, secrets)}\n`);
      return EXIT_OUTAGE;
    }
    throw error;
  }
}

