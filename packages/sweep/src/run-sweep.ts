import { chmod, lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { REPORT_PROVENANCE_FILE, formatReportProvenance, renderReport, openResultsLog, type ReportProvenance, type SweepStatus } from "@wfbench/bench-report";
import { writeHtmlReport } from "@wfbench/report-html";
import { buildArmSessions, computeSkillFingerprint, isArmForTask, listArmSkills, readCandidateOverlay, renderShellPrefix, runCell, type CandidateOverlay, type CellBackend, type CellCePlugin, type CellIndex } from "@wfbench/cell-pipeline";
import { aggregateByTaskArm, assessMeasurementHealth, computeOverlayDigest, formatPromotionFile, listMirrorTargets, type ArmHealth, type Promotion, type PromotionMetric } from "@wfbench/promotion-gate";
import { resolveClaudeCli, stageExecOnlyBinary, stageExecOnlyShell } from "@wfbench/claude-cli";
import { CE_ARMS, HOST_UNSAFE_ARMS, isCandidateArm, isCeArm, type Arm, type ResultRow } from "@wfbench/result-row";
import { snapshotPlugin, type PluginProvenance } from "@wfbench/plugin-snapshot";
import { createSandboxedGitRunner, createTemplateCache, listHiddenHarnessPaths, templateContentKeyOf, type Template } from "@wfbench/clone-sanitizer";
import { sha256Hex } from "@wfbench/digest";
import { removeTree, writeFileAtomic } from "@wfbench/durable-fs";
import { explainProbeFailure, probeUpstream, startGateway, type ProbeOutcome, type ProbeResult, type UpstreamSettings } from "@wfbench/litellm-gateway";
import { captureOracle, readReviewLabels, type OracleSnapshot } from "@wfbench/oracle-snapshot";
import { parseLabels } from "@wfbench/review-scoring";
import { redactText } from "@wfbench/redact";
import { preflight } from "@wfbench/sandbox-bwrap";
import { loadScript, startScriptedModel } from "@wfbench/scripted-model";
import { buildTaskBinding, createTaskSourceResolver, isReviewTask, loadTaskSuite, type ResolvedSource, type Task } from "@wfbench/task-suite";
import { buildIndexes } from "./build-indexes.js";
import { buildSweepPromotion } from "./build-sweep-promotion.js";
import { createEmptyOutDir } from "./create-empty-out-dir.js";
import { SweepError } from "./errors.js";
import { startHeartbeat } from "./heartbeat.js";
import { claimScratchDir, reapStaleScratchDirs } from "./scratch-dir.js";
import { couldTripBy, createOutageBreaker, isSystemicRow } from "./outage-breaker.js";
import { createInOrderCommitter, runCellPool } from "./run-cell-pool.js";
import { settleBounded } from "./settle-bounded.js";
import { createContaminationTracker } from "./contamination.js";
import { SWEEP_PLAN_FILE, buildSweepPlan, formatSweepPlan, selectShardCells, type ShardSpec } from "./shard-plan.js";
import { openReuseSource } from "./materialize-reused-row.js";
import { buildReuseExpectation, buildTaskReuseBinding, describeTemplateBinding, planComparatorReuse } from "./plan-reuse.js";
import { REUSE_MAX_AGE_MS } from "./comparator-reuse.js";
import { TEMPLATE_BINDINGS_FILE, planTemplateSkips, readTemplateBindings, writeTemplateBindings, type TemplateBinding } from "./reuse-templates.js";
import { planResume } from "./resume-sweep.js";
import { findTargetBaseDrift, findTaskBindingDrift } from "./check-pinned-bindings.js";
import { digestSweepRuntime } from "./runtime-digest.js";

/** The sweep's error code for each way the upstream canary can refuse. */
const CANARY_CODES = {
  key_refused: "SWEEP_UPSTREAM_KEY_REFUSED",
  model_unknown: "SWEEP_UPSTREAM_MODEL_UNKNOWN",
  unreachable: "SWEEP_UPSTREAM_UNREACHABLE",
  failed: "SWEEP_UPSTREAM_FAILED",
} as const satisfies Record<Exclude<ProbeOutcome, "ok">, string>;

/** Reference §5.7: one pool across all tasks, at most workers × this many cells ahead of the in-order fold. */
const PACKED_WINDOW_MULTIPLIER = 2;
/** Default interval of the heartbeat event (issue 14: a sign of life every minute during long cells). */
const HEARTBEAT_MS = 60_000;

/** What the sweep tells its caller as it goes (main.ts prints these). */
export type SweepEvent =
  | { readonly kind: "prepared"; readonly outDir: string; readonly cells: number; readonly claudeVersion: string; readonly shard?: { readonly index: number; readonly count: number; readonly planned: number } | null }
  /** A cell starts; `index` counts the cells started so far (1-based), which may differ from the cell's canonical place. */
  | { readonly kind: "cell-start"; readonly task: string; readonly arm: Arm; readonly run: number; readonly index: number; readonly total: number; readonly elapsedMs: number }
  | { readonly kind: "cell-end"; readonly row: ResultRow }
  /**
   * The outage breaker tripped (reference §5.7): `streak` systemic rows in canonical order ending at this cell; no
   * further cell starts, the `inFlight` cells already running finish and are recorded.
   */
  | { readonly kind: "outage"; readonly task: string; readonly arm: Arm; readonly run: number; readonly streak: number; readonly inFlight: number }
  /** Every heartbeat interval while cells run: how far the sweep is and which cells are running now. */
  | { readonly kind: "heartbeat"; readonly elapsedMs: number; readonly done: number; readonly total: number; readonly running: readonly { readonly task: string; readonly arm: Arm; readonly run: number }[] }
  /** Something the operator should know that does not change the outcome (a scratch dir left behind, refused connections). */
  | { readonly kind: "warning"; readonly message: string };

/** How the sweep ended. */
export interface SweepSummary {
  readonly outDir: string;
  readonly resultsPath: string;
  readonly reportPath: string;
  readonly rows: number;
  readonly status: SweepStatus;
  /** Measurement health of each checked arm (reference §5.8: candidate arms, review, ce_review), code-point order. */
  readonly health: readonly ArmHealth[];
  /** Checked arms whose every fresh attempt was an execution or evidence failure (status UNUSABLE). */
  readonly unusableArms: readonly string[];
  readonly elapsedMs: number;
  /** Set when the outage breaker stopped the sweep (status "aborted"): the streak and where it reached the limit. */
  readonly outage: { readonly streak: number; readonly task: string; readonly arm: Arm; readonly run: number } | null;
  /** promotion.json's path and each candidate arm's decision, when candidate arms ran. */
  readonly promotion: { readonly path: string; readonly decisions: readonly { readonly candidateArm: string; readonly decision: string }[] } | null;
}

/** What one sweep runs: already-validated settings (the app parses argv; every path absolute). */
export interface SweepOptions {
  /** The task suite YAML. */
  readonly tasks: string;
  readonly arms: readonly Arm[];
  /** True when the arms were chosen explicitly; with an overlay and no explicit arms the sweep runs the overlay's required arms. */
  readonly armsExplicit: boolean;
  readonly repeats: number;
  /** Output directory: must be new or empty. */
  readonly out: string;
  /** Cells running at once, across tasks. */
  readonly workers: number;
  readonly model: string;
  readonly effort: string;
  /** Per session, verify and oracle. */
  readonly timeoutS: number;
  /** Scripted-model trajectories (used only with the scripted upstream). */
  readonly script: string;
  /** Hidden oracle root. */
  readonly oracles: string;
  readonly includeExpensive: boolean;
  /** Candidate skill overlay directory, or null. */
  readonly candidateOverlay: string | null;
  /** Consecutive systemic failures (reference §5.7) that stop the sweep: a whole number, 0 disables the breaker. */
  readonly outageStreak: number;
  /** A user-supplied Claude Code CLI (absolute path) to prove and run instead of the pinned one, or null. */
  readonly claudeBin: string | null;
  /** Provenance only: the model that proposed the overlay, recorded in rows and report.md; null when none. */
  readonly proposerModel: string | null;
  /** The implementation gate's thresholds (reference §2.1). */
  readonly promotion: {
    readonly metric: PromotionMetric;
    readonly minRuns: number;
    readonly minImprovementPct: number;
    readonly maxTaskRegressionPct: number;
  };
  /**
   * `--shard k/N`: run only the cells assigned to shard k (a stable hash of task, arm and run); null or absent runs
   * them all. A shard never writes promotion.json: `wfbench merge` decides on the whole evidence.
   */
  readonly shard?: ShardSpec | null;
  /** The CE plugin directory (`--ce-plugin-dir`, absolute) and its exact version; both set iff a CE arm runs. */
  readonly cePluginDir: string | null;
  readonly cePluginVersion: string | null;
  /** `--unsafe-no-bwrap`: review arms only; the app must then hand in the host-unsafe backend. */
  readonly unsafeNoBwrap: boolean;
  /** `--reuse-results`: an earlier sweep's output directory whose comparator rows may stand in for cells (§5.6), or null. */
  readonly reuseResults?: string | null;
  /** The evolve driver's explicit runtime digest (env WFBENCH_RUNTIME_DIGEST, read by the app); null: computed here. */
  readonly runtimeDigestOverride?: string | null;
  /** `--task-bindings-json`, parsed: the evolve driver's task pins; the sweep refuses any drifted field. Null: none. */
  readonly taskBindings?: unknown;
  /** `--promotion-target-bases-json`, parsed: must equal the overlay destinations' committed digests. Null: none. */
  readonly promotionTargetBases?: unknown;
  /** `--resume`: `out` holds an interrupted sweep of the same settings; its rows are kept and only missing cells run. */
  readonly resume?: boolean;
}

/** Inputs of {@link runSweep}: validated options plus what only the app may know (environment, signals). */
export interface RunSweepInput {
  readonly options: SweepOptions;
  /** Resolved by main.ts (resolveUpstreamSettings); a real upstream's key stays in this process and the gateway. */
  readonly upstream: UpstreamSettings;
  readonly homeDir: string | null;
  /** Where the sweep's scratch dir (wfbench-run-*) is made: the app passes os.tmpdir(). */
  readonly tmpDir: string;
  /** This process's pid (process.pid), recorded as the scratch dir's owner so a later sweep can reap it once it is gone. */
  readonly pid: number;
  readonly signal: AbortSignal;
  /** How often a `heartbeat` event is sent while cells run (default 60 000 ms; tests pass less). */
  readonly heartbeatMs?: number;
  readonly onEvent: (event: SweepEvent) => void;
  /**
   * The host-unsafe backend the app built (createHostUnsafeBackend, after its CI check) when `unsafeNoBwrap` is set;
   * every process of every cell then runs on it. Absent: bwrap.
   */
  readonly hostUnsafeBackend?: CellBackend;
  /** The node binary (process.execPath) a suite's MCP servers and their in-cell relay run on; needed only with `mcp_servers`. */
  readonly nodePath?: string;
}

async function prepareOutDir(out: string, resume: boolean): Promise<void> {
  if (resume) {
    const stat = await lstat(join(out, "results.jsonl")).catch(() => null);
    if (stat === null || !stat.isFile()) throw new SweepError("SWEEP_BAD_INPUT", `--resume ${out} holds no regular results.jsonl: pass the output directory of the interrupted sweep`);
    return;
  }
  await createEmptyOutDir(out, "--out");
}

function withIndex(index: CellIndex | undefined): { index?: CellIndex } {
  return index === undefined ? {} : { index };
}

function badInput(message: string): SweepError {
  return new SweepError("SWEEP_BAD_INPUT", message);
}

/**
 * The committed bytes each overlay destination replaces (reference §4.5 target base digests: canonical path and any
 * shipped mirror that exists), read from the sanitized templates the candidate cells start from. Refuses an overlay
 * that changes nothing (byte-identical to the incumbent skills) and templates that disagree on a destination.
 */
async function readTargetBases(overlay: CandidateOverlay, templates: readonly Template[]): Promise<Record<string, string>> {
  const bases: Record<string, string> = {};
  let changes = false;
  for (const template of templates) {
    for (const file of overlay.files) {
      for (const [index, target] of listMirrorTargets(file.path).entries()) {
        const path = join(template.path, target);
        const stat = await lstat(path).catch(() => null);
        if (stat === null || !stat.isFile()) {
          if (index === 0) changes = true;
          continue;
        }
        const bytes = await readFile(path);
        if (index === 0 && !bytes.equals(Buffer.from(file.bytes))) changes = true;
        const digest = sha256Hex(bytes);
        if (bases[target] !== undefined && bases[target] !== digest) throw badInput(`--candidate-overlay: the tasks' repositories hold different bytes at ${target}: run one overlay against tasks that share its skill files`);
        bases[target] = digest;
      }
    }
  }
  if (templates.length > 0 && !changes) throw badInput(`--candidate-overlay ${overlay.root}: every file is byte-identical to the incumbent skills: the candidate would measure nothing`);
  return bases;
}

/**
 * One sweep of the offline pipeline: validate everything before any paid work (suite, arms' skills, oracles, sources),
 * then start the scripted model and the metering gateway, run every (task, arm, repeat) cell through
 * @wfbench/cell-pipeline, append each row to results.jsonl as it lands, and write report.md atomically at the end (also
 * after a cancel). Throws SweepError(SWEEP_BAD_INPUT) for bad input and lets environment errors propagate.
 */
export async function runSweep(input: RunSweepInput): Promise<SweepSummary> {
  const { options, signal, upstream } = input;
  // Every message and row line this process writes passes the key to the redactor as a known secret.
  const secrets = upstream.kind === "scripted" ? [] : [upstream.apiKey];
  const started = Date.now();
  const suite = await loadTaskSuite(options.tasks, { includeExpensive: options.includeExpensive, homeDir: input.homeDir });
  if (!suite.ok) throw badInput(suite.error.message);
  const tasks = suite.value.selected;
  if (tasks.length === 0) throw badInput(`${options.tasks}: every task is expensive: pass --include-expensive`);
  // The overlay is validated before anything else is prepared (reference §9.4); it also fixes the arm list (§2.1).
  let overlay: { value: CandidateOverlay; digest: string } | null = null;
  let arms: readonly Arm[] = options.arms;
  if (options.candidateOverlay !== null) {
    const read = await readCandidateOverlay(options.candidateOverlay, suite.value.skills);
    if (!read.ok) throw badInput(`--candidate-overlay ${options.candidateOverlay}: ${read.error.file ?? "(overlay root)"}: rule ${read.error.rule}: ${read.error.message}`);
    overlay = { value: read.value, digest: computeOverlayDigest(read.value.files) };
    const required = read.value.requiredArms;
    if (!options.armsExplicit) arms = required;
    else if (arms.join(" ") !== required.join(" ")) {
      throw badInput(`--arms ${arms.join(" ")}: the overlay touches ${read.value.skills.join(", ")}, so --arms must be exactly: ${required.join(" ")} (or omit --arms)`);
    }
  }
  // Reference §2.1: a review overlay is measured against the CE reviewer too when the CE plugin is given (ce_review first).
  if (overlay !== null && !options.armsExplicit && options.cePluginDir !== null && arms.includes("candidate_review")) arms = ["ce_review", ...arms];
  const ceArms = arms.filter(isCeArm);
  if (ceArms.length > 0 && (options.cePluginDir === null || options.cePluginVersion === null)) {
    throw badInput(`--arms ${ceArms.join(" ")}: the CE arms need --ce-plugin-dir DIR and --ce-plugin-version X.Y.Z (the exact version in its .claude-plugin/plugin.json)`);
  }
  if (ceArms.length === 0 && options.cePluginDir !== null) throw badInput(`--ce-plugin-dir is only used by the CE arms (${Object.keys(CE_ARMS).join(", ")}): add one to --arms or drop the flag`);
  const hostUnsafe = options.unsafeNoBwrap ? input.hostUnsafeBackend : undefined;
  if (options.unsafeNoBwrap) {
    if (hostUnsafe?.kind !== "host-unsafe") throw new TypeError("unsafeNoBwrap needs the host-unsafe backend from the app");
    const other = arms.filter((arm) => !HOST_UNSAFE_ARMS.includes(arm));
    if (other.length > 0) throw badInput(`--unsafe-no-bwrap runs review arms only (${HOST_UNSAFE_ARMS.join(", ")}), never ${other.join(", ")}: drop the flag or pass --arms with review arms only`);
  }
  // Arms run only on their kind of task (review arms on review tasks); a selection with nothing to run is bad input.
  const armsOf = (task: Task): readonly Arm[] => arms.filter((arm) => isArmForTask(arm, isReviewTask(task)));
  if (tasks.every((task) => armsOf(task).length === 0)) {
    throw badInput(`--arms ${arms.join(" ")}: no selected task takes these arms (review arms run on review tasks, the others on implementation tasks): add an arm for the suite's tasks`);
  }
  const mcpServers = suite.value.mcpServers;
  if (mcpServers.length > 0) {
    if (input.nodePath === undefined || !isAbsolute(input.nodePath)) throw new TypeError("a suite with mcp_servers needs the node binary's absolute path (RunSweepInput.nodePath)");
    const declared = [
      ...mcpServers.flatMap((server, index) => server.mounts.map((mount, at) => ({ field: `mcp_servers[${index}].mounts[${at}].source`, source: mount.source }))),
      ...(suite.value.indexBuilder?.mounts ?? []).map((mount, at) => ({ field: `index_builder.mounts[${at}].source`, source: mount.source })),
    ];
    for (const { field, source } of declared) {
      const stats = await lstat(source).catch(() => null);
      if (stats === null || !(stats.isFile() || stats.isDirectory())) {
        throw badInput(`${options.tasks}: field ${field}: ${source} is not a regular file or directory (a link is refused): build the server or fix the path (relative paths are resolved against the suite file)`);
      }
    }
  }
  // A real upstream needs no script: the scripted model is not started at all.
  const script = upstream.kind === "scripted" ? await loadScript(options.script) : null;
  if (script !== null && !script.ok) throw badInput(`--script: ${script.error.message}`);
  await preflight({});
  const cli = await resolveClaudeCli({ claudeBin: options.claudeBin });
  await prepareOutDir(options.out, options.resume === true);
  const reuseSource = options.reuseResults == null ? null : await openReuseSource(options.reuseResults, options.out);
  if (typeof reuseSource === "string") throw badInput(reuseSource);
  // The digest reads the whole CLI binary (~400 MB): it runs beside the oracle capture and the template builds and is
  // awaited where first needed. The catch only keeps an early failure elsewhere from leaving it unhandled.
  const runtimeDigestPending = options.runtimeDigestOverride != null ? Promise.resolve(options.runtimeDigestOverride) : digestSweepRuntime({ claudePath: cli.path, claudeVersion: cli.version, script: script?.ok === true ? script.value : null });
  runtimeDigestPending.catch(() => undefined);

  const oracles = new Map<string, OracleSnapshot>();
  for (const task of tasks) {
    const captured = await captureOracle(task.oracle, options.oracles);
    if (!captured.ok) throw badInput(`${options.tasks}: task ${JSON.stringify(task.id)} field ${captured.error.field}: ${captured.error.message} (oracle root ${options.oracles}; fix the file or pass --oracles)`);
    oracles.set(task.id, captured.value);
    if (isReviewTask(task)) {
      // Broken hidden labels are the harness's fault: refuse them before any paid work, not per cell.
      const bytes = readReviewLabels(captured.value);
      const labels = bytes.ok ? parseLabels(bytes.value) : null;
      if (labels === null || !labels.ok) throw badInput(`${options.tasks}: task ${JSON.stringify(task.id)} field oracle.files: hidden review labels refused (${labels === null ? "no review-labels.json target" : `${labels.error.code}: ${labels.error.message}`}): fix the labels file under ${options.oracles}`);
    }
  }

  // A sweep killed with SIGKILL leaves its scratch dir (cell copies, the CLI copy) behind: reap those whose owner is gone.
  const reaped = await reapStaleScratchDirs(input.tmpDir);
  for (const dir of reaped.removed) input.onEvent({ kind: "warning", message: `removed the scratch directory ${dir} of a sweep that is no longer running` });
  for (const { dir, error } of reaped.failed) input.onEvent({ kind: "warning", message: `could not remove the stale scratch directory ${dir} (${redactText(String(error), secrets)}): delete it by hand` });
  const workDir = await claimScratchDir(input.tmpDir, input.pid);
  const templatesDir = join(workDir, "templates");
  const sourcesDir = join(workDir, "sources");
  await mkdir(templatesDir, { recursive: true });
  // Every internal git call runs in the bwrap sandbox: no network, only the templates/sources dirs writable, and the
  // tasks' own repositories read-only (bound only into the calls that name them).
  const git = createSandboxedGitRunner({ writableRoots: [templatesDir, sourcesDir], readOnlyRoots: [...new Set(tasks.map((task) => task.repo))] });
  const templates = createTemplateCache({ runner: git, parentDir: templatesDir });
  let model: Awaited<ReturnType<typeof startScriptedModel>> | null = null;
  let gateway: Awaited<ReturnType<typeof startGateway>> | null = null;
  let finished = false;
  // Staged beside the template builds too (the copy runs in the kernel); awaited before the gateway starts and, on
  // every path, before the scratch dir it writes into is removed.
  const runtime = join(workDir, "runtime");
  const shellPrefixPath = join(runtime, "shell-prefix");
  const shellPath = join(runtime, "bash");
  const staging = (async (): Promise<string> => {
    await mkdir(runtime, { mode: 0o700 });
    await writeFile(shellPrefixPath, renderShellPrefix(options.unsafeNoBwrap ? "host-unsafe" : "bwrap"), { mode: 0o500 });
    await chmod(shellPrefixPath, 0o500);
    await stageExecOnlyShell(shellPath);
    return stageExecOnlyBinary(cli.path, join(runtime, "claude"));
  })();
  staging.catch(() => undefined);
  try {
    // Reference §6.9: the plugin is copied (bounded, allow-listed, no links) and frozen once, before any paid work;
    // every CE session mounts this copy read-only, and its digest goes into every CE row and promotion.json.
    let cePlugin: { cell: CellCePlugin; provenance: PluginProvenance } | null = null;
    if (ceArms.length > 0 && options.cePluginDir !== null && options.cePluginVersion !== null) {
      const snapshot = await snapshotPlugin({ pluginDir: options.cePluginDir, expectedVersion: options.cePluginVersion, destDir: join(workDir, "ce-plugin") });
      if (!snapshot.ok) throw badInput(`--ce-plugin-dir ${options.cePluginDir}: ${snapshot.error.message}`);
      cePlugin = { cell: { hostPath: snapshot.value.path, version: snapshot.value.version, manifestDigest: snapshot.value.manifestDigest }, provenance: snapshot.value.provenance };
    }
    const resolver = createTaskSourceResolver({ git, workDir: sourcesDir });
    const sources = new Map<string, ResolvedSource>();
    const prepared = new Map<string, Template>();
    const templateInputs = new Map<string, { repo: string; sha: string; hiddenPaths: string[]; neutralize: [] }>();
    for (const task of tasks) {
      const source = await resolver.resolve(task);
      if (!source.ok) throw badInput(`${options.tasks}: task ${JSON.stringify(task.id)} field ${source.error.field}: ${source.error.message}`);
      sources.set(task.id, source.value);
      // The sanitized clone must not carry the hidden oracle bytes or the oracle command.
      const hiddenPaths = await listHiddenHarnessPaths(source.value.origin === "git" ? source.value.repo : task.repo, [
        { path: options.oracles, flag: "--oracles" },
        { path: options.tasks, flag: "--tasks" },
      ]);
      if (!hiddenPaths.ok) throw badInput(`${options.tasks}: task ${JSON.stringify(task.id)} field repo: ${hiddenPaths.error}`);
      templateInputs.set(task.id, { repo: source.value.repo, sha: source.value.sha, hiddenPaths: hiddenPaths.value, neutralize: [] });
    }
    const planned: { task: Task; arm: Arm; run: number }[] = [];
    for (const task of tasks) for (let run = 0; run < options.repeats; run += 1) for (const arm of armsOf(task)) planned.push({ task, arm, run });
    // A shard's cells are its whole world: resume and reuse look only at them.
    const shard = options.shard ?? null;
    const shardCells = selectShardCells(planned, shard, (cell) => ({ task: cell.task.id, arm: cell.arm, run: cell.run }));
    const reuseNow = new Date();
    const sandboxBackend = options.unsafeNoBwrap ? "host-unsafe" : "bwrap";
    // Reference §5.6: a task whose every planned cell will be reused needs no template (nor index). Decided from the
    // earlier sweep's record of the very same template (same key); anything uncertain prepares the template as usual.
    let skippedTemplates = new Map<string, TemplateBinding>();
    if (reuseSource !== null && options.resume !== true) {
      const recorded = await readTemplateBindings(reuseSource);
      if (recorded.note !== null) input.onEvent({ kind: "warning", message: `reuse-results: ${recorded.note}` });
      skippedTemplates = planTemplateSkips({
        candidates: tasks.map((task) => ({ task: task.id, templateKey: templateContentKeyOf(templateInputs.get(task.id) as NonNullable<ReturnType<typeof templateInputs.get>>), binding: buildTaskReuseBinding(task, sources.get(task.id) as ResolvedSource, oracles.get(task.id) as OracleSnapshot) })),
        cells: shardCells.map((cell) => ({ task: cell.task.id, arm: cell.arm, run: cell.run })),
        recorded: recorded.bindings,
        source: reuseSource,
        expected: { model: options.model, effort: options.effort, sandboxBackend, runtimeDigest: await runtimeDigestPending, now: reuseNow, maxAgeMs: REUSE_MAX_AGE_MS, cePluginVersion: cePlugin?.cell.version ?? null, cePluginManifestDigest: cePlugin?.cell.manifestDigest ?? null },
      });
    }
    const templateBindings = new Map<string, TemplateBinding>();
    /** Builds (or takes from the cache) a task's sanitized template and proves the arms' skills are in it. */
    const prepareTemplate = async (task: Task): Promise<Template> => {
      const skills = [...new Set(armsOf(task).flatMap((arm) => listArmSkills(arm, suite.value.skills)))];
      const declaration = templateInputs.get(task.id) as NonNullable<ReturnType<typeof templateInputs.get>>;
      const template = await templates.acquire(declaration);
      if (!template.ok) throw new SweepError("SWEEP_TEMPLATE_FAILED", `task ${task.id}: sanitized template failed (${template.error.code}): ${template.error.message}`, { cause: template.error.cause });
      try {
        await computeSkillFingerprint(template.value.path, skills);
      } catch (cause) {
        throw badInput(`${options.tasks}: task ${JSON.stringify(task.id)} field repo: the arms ${armsOf(task).join(", ")} need .claude/skills/{${skills.join(",")}} in the repository (${(cause as Error).message})`);
      }
      prepared.set(task.id, template.value);
      templateBindings.set(task.id, await describeTemplateBinding(template.value, templateContentKeyOf(declaration) as string, armsOf(task), suite.value.skills));
      return template.value;
    };
    for (const task of tasks) {
      const recorded = skippedTemplates.get(task.id);
      if (recorded === undefined) continue;
      templateBindings.set(task.id, recorded);
      input.onEvent({ kind: "warning", message: `reuse-results: task ${task.id}: every planned cell is reused, so its sanitized template and index are not prepared` });
    }
    // A build is mostly sandboxed git start-ups, so up to `workers` of them overlap (tasks of one repository share one
    // build through the cache). Every started build settles before a failure is reported, and the one reported is the
    // first failing task in suite order, whatever order the builds end in.
    const failures = await settleBounded(tasks.filter((task) => !skippedTemplates.has(task.id)), options.workers, prepareTemplate);
    if (failures[0] !== undefined) throw failures[0];
    const runtimeDigest = await runtimeDigestPending;
    const targetBaseDigests = overlay === null ? {} : await readTargetBases(overlay.value, tasks.filter((task) => armsOf(task).some(isCandidateArm)).map((task) => prepared.get(task.id) as Template));
    // The evolve driver's pins (reference §2.1): a drifted task or destination is refused before any paid work.
    const bindingDrift = options.taskBindings == null ? null : findTaskBindingDrift(options.taskBindings, tasks.map((task) => buildTaskBinding(task, sources.get(task.id) as ResolvedSource, oracles.get(task.id) as OracleSnapshot)));
    if (bindingDrift !== null) throw badInput(bindingDrift);
    if (options.promotionTargetBases != null) {
      if (overlay === null) throw badInput("--promotion-target-bases-json is only valid with --candidate-overlay");
      const baseDrift = findTargetBaseDrift(options.promotionTargetBases, targetBaseDigests);
      if (baseDrift !== null) throw badInput(baseDrift);
    }
    // Before the gateway and the model reopen their logs: a torn tail they would append after is dropped first.
    const resumed = options.resume !== true ? null : await planResume(options.out, shardCells, await buildReuseExpectation({ cells: shardCells, model: options.model, effort: options.effort, runtimeDigest, skills: suite.value.skills, sources, templates: prepared, oracles, now: new Date(), sandboxBackend, cePlugin: cePlugin?.cell ?? null }), overlay?.digest ?? null);
    if (typeof resumed === "string") throw badInput(resumed);
    for (const note of resumed?.notes ?? []) input.onEvent({ kind: "warning", message: `resume: ${note}` });

    // Built once per sanitized commit and proved clean before the model or the gateway is even started.
    let indexes = new Map<string, CellIndex>();
    if (suite.value.indexBuilder !== null && input.nodePath !== undefined) {
      const built = await buildIndexes({
        builder: suite.value.indexBuilder,
        templates: tasks.flatMap((task) => prepared.get(task.id) ?? []),
        dir: join(workDir, "indexes"),
        nodePath: input.nodePath,
        timeoutMs: options.timeoutS * 1000,
        signal,
      });
      if (!built.ok) throw badInput(`${options.tasks}: ${built.error}`);
      indexes = built.value;
    }

    const execOnlyClaude = await staging;
    let upstreamConfig: Parameters<typeof startGateway>[0]["upstream"];
    if (upstream.kind === "scripted") {
      if (script === null || !script.ok) throw new SweepError("SWEEP_BAD_INPUT", "--script: the scripted model needs its script");
      model = await startScriptedModel({ script: script.value, listen: { socketPath: join(workDir, "model.sock") }, requestLogPath: join(options.out, "scripted-model-requests.jsonl") });
      // The scripted model ignores the key; a fixed placeholder keeps the "real key never leaves the host" path exercised.
      upstreamConfig = { kind: "scripted", baseUrl: model.baseUrl, socketPath: join(workDir, "model.sock"), apiKey: "wfbench-scripted-upstream-key" };
    } else {
      upstreamConfig = { kind: upstream.kind, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey, authScheme: upstream.authScheme };
    }
    gateway = await startGateway({ listen: { socketPath: join(workDir, "gateway.sock") }, upstream: upstreamConfig, usageLogPath: join(options.out, "gateway-usage.jsonl") });
    let canary: ProbeResult | null = null;
    if (upstream.kind !== "scripted") {
      // One 1-token request before any cell: a refused key, an unknown model or a dead endpoint stops the sweep here.
      const canaryCell = "wfbench-upstream-canary";
      const token = gateway.mintCellToken(canaryCell);
      canary = await probeUpstream({ gateway: { socketPath: join(workDir, "gateway.sock") }, token, model: options.model });
      gateway.revokeCell(canaryCell);
      const failure = explainProbeFailure(canary, { kind: upstream.kind, baseUrl: upstream.baseUrl, model: options.model, detail: redactText(canary.detail, secrets), before: "a sweep" });
      if (failure !== null) throw new SweepError(CANARY_CODES[canary.outcome as Exclude<ProbeOutcome, "ok">], failure);
    }
    const cellGateway = { hostSocketPath: join(workDir, "gateway.sock"), mintCellToken: gateway.mintCellToken, revokeCell: gateway.revokeCell, summarizeCell: gateway.summarizeCell, flush: gateway.flush };

    const resultsPath = join(options.out, "results.jsonl");
    const log = await openResultsLog(resultsPath, { redact: (line) => redactText(line, secrets) });
    const selectedTasks = tasks.map((task) => buildTaskBinding(task, sources.get(task.id) as ResolvedSource, oracles.get(task.id) as OracleSnapshot));
    // Written before any cell: `wfbench merge` learns the whole plan and the sweep's identity from every shard.
    const sweepPlan = buildSweepPlan({
      identity: {
        model: options.model,
        effort: options.effort,
        proposer_model: options.proposerModel,
        upstream: upstream.kind,
        claude_code_version: cli.version,
        arms: [...arms],
        repeats: options.repeats,
        selected_tasks: tasks.map((task) => task.id),
        skipped_expensive_tasks: [...suite.value.skippedExpensive],
        task_bindings: selectedTasks,
        candidate_overlay_digest: overlay?.digest ?? null,
        target_base_digests: targetBaseDigests,
        promotion: { metric: options.promotion.metric, min_runs: options.promotion.minRuns, min_improvement_pct: options.promotion.minImprovementPct, max_task_regression_pct: options.promotion.maxTaskRegressionPct },
      },
      shard,
      candidateOverlay: overlay?.value.root ?? null,
      cells: planned.map((cell) => ({ task: cell.task.id, arm: cell.arm, run: cell.run })),
    });
    await writeFileAtomic(join(options.out, SWEEP_PLAN_FILE), formatSweepPlan(sweepPlan), { mode: 0o644 });
    const contamination = createContaminationTracker();
    // Reference §5.6: reused rows are written first and fold into the breaker like any other; the rest is paid for.
    const reuse = reuseSource === null ? null : await planComparatorReuse({ source: reuseSource, cells: shardCells, outDir: options.out, model: options.model, effort: options.effort, runtimeDigest, skills: suite.value.skills, sources, templates: prepared, skippedTemplates, oracles, now: reuseNow, sandboxBackend, cePlugin: cePlugin?.cell ?? null });
    const cells = reuse !== null ? [...reuse.paid] : resumed !== null ? [...resumed.missing] : shardCells;
    for (const note of reuse?.notes ?? []) input.onEvent({ kind: "warning", message: `reuse-results: ${note}` });
    // A reused copy that failed after all (its files drifted) leaves its cell paid: that task's template is built now
    // and must be the one the earlier sweep recorded, or the rows reused against that record would be unsound.
    const late: Template[] = [];
    for (const task of tasks) {
      const recorded = skippedTemplates.get(task.id);
      if (recorded === undefined || prepared.has(task.id) || !cells.some((cell) => cell.task.id === task.id)) continue;
      late.push(await prepareTemplate(task));
      const built = templateBindings.get(task.id) as TemplateBinding;
      const differs = built.sanitized_sha !== recorded.sanitized_sha || Object.entries(built.skill_digests).some(([arm, digest]) => Object.hasOwn(recorded.skill_digests, arm) && recorded.skill_digests[arm] !== digest);
      if (differs) throw new SweepError("SWEEP_TEMPLATE_FAILED", `task ${task.id}: the sanitized template built now differs from the one ${reuseSource?.dir ?? "the reuse source"}/${TEMPLATE_BINDINGS_FILE} records under the same key: run again without --reuse-results, or remove that file from the source to prepare every template`);
    }
    if (late.length > 0 && suite.value.indexBuilder !== null && input.nodePath !== undefined) {
      const built = await buildIndexes({ builder: suite.value.indexBuilder, templates: late.filter((template) => !indexes.has(template.sanitizedSha)), dir: join(workDir, "indexes-late"), nodePath: input.nodePath, timeoutMs: options.timeoutS * 1000, signal });
      if (!built.ok) throw badInput(`${options.tasks}: ${built.error}`);
      indexes = new Map([...indexes, ...built.value]);
    }
    // What a later --reuse-results sweep needs to skip this sweep's templates in turn.
    await writeTemplateBindings(options.out, templateBindings);
    input.onEvent({ kind: "prepared", outDir: options.out, cells: cells.length, claudeVersion: cli.version, shard: shard === null ? null : { ...shard, planned: planned.length } });

    const rows: ResultRow[] = [];
    const breaker = createOutageBreaker(options.outageStreak);
    // A resumed sweep's rows are already in the log: they count for the report and the breaker, in log order.
    for (const row of resumed?.kept ?? []) {
      rows.push(row);
      breaker.fold(row);
    }
    for (const row of reuse?.reused ?? []) {
      await log.append(row);
      rows.push(row);
      breaker.fold(row);
    }
    // The breaker folds rows in the order they are committed, which is canonical: its verdict never depends on which
    // worker finished first. A trip stops new cells through its own signal; the running ones are not cancelled, so
    // every row they produce is real evidence and still written (at most workers − 1 of them).
    const trip = new AbortController();
    let outage: SweepSummary["outage"] = null;
    const running = new Set<number>();
    // What each finished cell means to the breaker, held rows included: lets the scheduler keep a possible trip within
    // workers − 1 cells of the last one started, while the packed window runs ahead of the fold.
    const systemic = new Map<number, boolean>();
    // Rows land in canonical (task, run, arm) order whatever order the workers finish in (reference §5.7's fold order).
    const committer = createInOrderCommitter<ResultRow>(async (cellRow, index) => {
      // Flagged at commit: the arms of the same task and run committed before this row are all known here.
      const row = contamination.mark(cellRow);
      await log.append(row);
      rows.push(row);
      const fold = breaker.fold(row);
      if (fold.tripped && outage === null) {
        const cell = cells[index] as (typeof cells)[number];
        outage = { streak: fold.streak, task: cell.task.id, arm: cell.arm, run: cell.run };
        trip.abort();
        input.onEvent({ kind: "outage", ...outage, inFlight: running.size });
      }
    });
    // A harness exception in one cell stops new cells but waits for the running ones (they share the gateway and the
    // work dir); the rows recorded so far still get their report, and the log is closed on every path.
    let pool: Awaited<ReturnType<typeof runCellPool>>;
    let done = 0;
    let startedCells = 0;
    // Cells with more CLI sessions (plan → work) start first within the window: longest first keeps one from running
    // alone at the end of the sweep. Rows still land in canonical order (the committer).
    const sessionCounts = cells.map((cell) => buildArmSessions(cell.arm, "", suite.value.skills).length);
    const stopHeartbeat = startHeartbeat(input.heartbeatMs ?? HEARTBEAT_MS, () => {
      const now = [...running].sort((a, b) => a - b).map((index) => cells[index] as (typeof cells)[number]);
      input.onEvent({ kind: "heartbeat", elapsedMs: Date.now() - started, done, total: cells.length, running: now.map((cell) => ({ task: cell.task.id, arm: cell.arm, run: cell.run })) });
    });
    try {
      pool = await runCellPool(cells, options.workers, AbortSignal.any([signal, trip.signal]), async (cell, index) => {
        running.add(index);
        startedCells += 1;
        input.onEvent({ kind: "cell-start", task: cell.task.id, arm: cell.arm, run: cell.run, index: startedCells, total: cells.length, elapsedMs: Date.now() - started });
        const row = await runCell({
          task: cell.task,
          arm: cell.arm,
          run: cell.run,
          skills: suite.value.skills,
          source: sources.get(cell.task.id) as ResolvedSource,
          template: prepared.get(cell.task.id) as Template,
          oracle: oracles.get(cell.task.id) as OracleSnapshot,
          model: options.model,
          effort: options.effort,
          proposerModel: options.proposerModel,
          claudePath: execOnlyClaude,
          shellPrefixPath,
          shellPath,
          gateway: cellGateway,
          upstream: upstream.kind,
          workDir,
          outDir: options.out,
          timeoutMs: options.timeoutS * 1000,
          signal,
          runtimeDigest,
          ...(overlay === null ? {} : { overlay: { files: overlay.value.files, digest: overlay.digest } }),
          ...(cePlugin === null ? {} : { cePlugin: cePlugin.cell }),
          ...(hostUnsafe === undefined ? {} : { backend: hostUnsafe }),
          ...(mcpServers.length === 0 || input.nodePath === undefined
            ? {}
            : { mcp: { servers: mcpServers, nodePath: input.nodePath, ...withIndex(indexes.get((prepared.get(cell.task.id) as Template).sanitizedSha)) } }),
        });
        running.delete(index);
        done += 1;
        systemic.set(index, isSystemicRow(row));
        input.onEvent({ kind: "cell-end", row });
        await committer.offer(index, row);
      }, { window: options.workers * PACKED_WINDOW_MULTIPLIER, mayStart: (index) => !couldTripBy(systemic, index - options.workers, options.outageStreak), priority: (index) => sessionCounts[index] ?? 0 });
    } finally {
      stopHeartbeat();
      // Rows held behind a cell that threw or never started are still written, in order, before the log closes.
      try {
        await committer.drain();
      } finally {
        await log.close();
      }
    }

    // An outage is checked first (reference §4.4 provenance): a trip followed by a signal is still an aborted sweep.
    const status: SweepStatus = outage !== null || pool.failure !== null ? "aborted" : signal.aborted ? "cancelled" : "complete";
    // Both are pure: the promotion's decisions go into report.md, and neither file is written unless both were built.
    // A shard holds part of the evidence: only the merge of all shards builds promotion.json.
    const promotion: Promotion | null =
      overlay === null || shard !== null
        ? null
        : buildSweepPromotion({
            rows,
            arms,
            thresholds: options.promotion,
            model: options.model,
            effort: options.effort,
            overlayPath: overlay.value.root,
            overlayDigest: overlay.digest,
            targetBaseDigests,
            selectedTasks,
            complete: status === "complete",
            now: new Date(),
            cePlugin: cePlugin === null ? null : { ...cePlugin.provenance },
            proposerModel: options.proposerModel,
          });
    const provenance: ReportProvenance = {
      benchmarkModel: options.model,
      proposerModel: options.proposerModel,
      effort: options.effort,
      selectedTasks: tasks.map((t) => t.id),
      skippedExpensiveTasks: suite.value.skippedExpensive,
      upstream: upstream.kind,
      claudeCodeVersion: options.claudeBin === null ? cli.version : `${cli.version} (--claude-bin ${cli.path})`,
      status,
      upstreamCanary: canary === null ? null : `\`${canary.outcome}\` (${redactText(canary.detail, secrets)})`,
      ...(reuse === null || reuseSource === null ? {} : { reuse: { source: reuseSource.dir, reusedCells: reuse.reused.length, paidCells: cells.length } }),
    };
    const report = renderReport(rows, provenance, { promotion });
    if (!report.ok) throw new SweepError("SWEEP_REPORT_FAILED", `row ${report.error.index} field ${report.error.field}: ${report.error.message}`);
    // `wfbench report` re-renders report.md from results.jsonl plus these facts, which the rows do not carry.
    await writeFileAtomic(join(options.out, REPORT_PROVENANCE_FILE), formatReportProvenance(provenance), { mode: 0o644 });
    let promotionSummary: SweepSummary["promotion"] = null;
    if (promotion !== null) {
      const promotionPath = join(options.out, "promotion.json");
      await writeFileAtomic(promotionPath, formatPromotionFile(promotion), { mode: 0o644 });
      promotionSummary = { path: promotionPath, decisions: promotion.decisions.map((d) => ({ candidateArm: d.candidate_arm, decision: d.decision })) };
    }
    const reportPath = join(options.out, "report.md");
    await writeFileAtomic(reportPath, report.value, { mode: 0o644 });
    await writeHtmlReport({ outDir: options.out, provenance }); // report.html + report-stats.json beside report.md
    if (pool.failure !== null) {
      const cell = cells[pool.failure.index];
      const cause = pool.failure.error;
      const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      throw new SweepError("SWEEP_CELL_FAILED", `[${cell?.task.id ?? "?"}][${cell?.arm ?? "?"}][run ${cell?.run ?? "?"}] the harness failed (${redactText(what, secrets)}); the other cells finished and ${reportPath} reports the ${rows.length} row(s) recorded`, { cause });
    }
    // Reference §5.8: judged after report and promotion are written, over candidate arms, review and ce_review only.
    const health = assessMeasurementHealth(aggregateByTaskArm(rows));
    const unusableArms = health.filter((arm) => arm.status === "UNUSABLE").map((arm) => arm.arm);
    finished = true;
    return { outDir: options.out, resultsPath, reportPath, rows: rows.length, status, health, unusableArms, elapsedMs: Date.now() - started, outage, promotion: promotionSummary };
  } finally {
    if (gateway !== null) {
      const seen = gateway.connectionStats();
      const refused = seen.refusedAtCapacity + seen.evictedUnauthenticated + seen.closedUnauthenticated + seen.refusedCellCapacity;
      if (refused > 0) input.onEvent({ kind: "warning", message: `the gateway refused or closed ${refused} client connection(s) (at capacity ${seen.refusedAtCapacity}, evicted ${seen.evictedUnauthenticated}, unauthenticated ${seen.closedUnauthenticated}, over a cell's cap ${seen.refusedCellCapacity}; at most ${seen.peakOpen} open at once)` });
    }
    // Every step runs whatever the others did; a failure of the sweep itself stays the error that is reported.
    let cleanupError: unknown = null;
    for (const step of [() => gateway?.close(), () => model?.close(), () => templates.dispose()]) {
      try {
        await step();
      } catch (error) {
        cleanupError ??= error;
        if (!finished) input.onEvent({ kind: "warning", message: `cleanup after the failed sweep: ${redactText(String(error), secrets)}` });
      }
    }
    await Promise.allSettled([staging, runtimeDigestPending]);
    // The report is written and the rows are final: a scratch dir that cannot be removed is the operator's to delete,
    // not a different outcome. removeTree also clears 0555 trees and chains past PATH_MAX a cell left behind.
    await removeTree(workDir).catch((error: unknown) => {
      input.onEvent({ kind: "warning", message: `could not remove the scratch directory ${workDir} (${redactText(String(error), secrets)}): delete it by hand` });
    });
    // A release failure after a finished sweep must still fail the run (the sweep's own error wins otherwise).
    // eslint-disable-next-line no-unsafe-finally
    if (finished && cleanupError !== null) throw cleanupError;
  }
}
