import { chmod, lstat, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readCandidateOverlay, renderShellPrefix, runSession, type CandidateOverlay, type SessionRecord, type SessionSpec } from "@wfbench/cell-pipeline";
import { resolveClaudeCli, stageExecOnlyBinary, stageExecOnlyShell } from "@wfbench/claude-cli";
import { SETTINGS_STUB_CONTENT, createSandboxedGitRunner, createTemplateCache, listHiddenHarnessPaths, materializeCell } from "@wfbench/clone-sanitizer";
import { sha256Hex } from "@wfbench/digest";
import { isDurableFsError, readFileUnderRoot, removeTree, writeFileExclusive } from "@wfbench/durable-fs";
import { explainProbeFailure, probeUpstream, startGateway, type UpstreamSettings } from "@wfbench/litellm-gateway";
import { redactText } from "@wfbench/redact";
import { SANDBOX_WORKSPACE, preflight } from "@wfbench/sandbox-bwrap";
import { startScriptedModel, type Script } from "@wfbench/scripted-model";
import { loadTaskSuite, type SuiteSkills } from "@wfbench/task-suite";
import { PROPOSER_OUTPUT_DIR, SANDBOX_EVIDENCE, buildProposerPrompt, type ProposerProfile } from "./build-proposer-prompt.js";
import { ProposerSessionError } from "./errors.js";
import { stageEvidenceBundle, type StagedBundle } from "./stage-evidence-bundle.js";

/** `proposal.md` must be a regular file of at most this many bytes (reference §9.3). */
export const MAX_PROPOSAL_BYTES = 256 * 1024;
/** The session record's file name in the output directory. */
export const PROPOSER_RECORD_FILE = "proposer-session.json";
/** Version of the session record's shape. */
export const PROPOSER_RECORD_SCHEMA = 1;

/** Everything one proposer session needs; paths absolute, all validated by the app. */
export interface RunProposerInput {
  /** The repository whose HEAD is cloned (it holds the incumbent skills). */
  readonly repoRoot: string;
  /** The suite file and the oracle root: hidden from the clone when they sit inside the repository. */
  readonly suitePath: string;
  readonly oraclesPath: string | null;
  /** The home directory `~` in the suite file expands to. */
  readonly homeDir: string;
  readonly profile: ProposerProfile;
  readonly model: string;
  readonly effort: string;
  readonly timeoutMs: number;
  /** Must not exist: created 0700 and filled with overlay/, proposal.md, proposer-session.json, transcripts/. */
  readonly outDir: string;
  readonly evidence: { readonly resultsDir: string | null; readonly learningsPath: string | null; readonly priorProposalPath: string | null };
  /** Resolved by the app (resolveUpstreamSettings); a real key stays in this process and the gateway. */
  readonly upstream: UpstreamSettings;
  /** The scripted model's trajectories; required with the scripted upstream. */
  readonly script: Script | null;
  readonly claudeBin: string | null;
  /** Parent of the private scratch directory (removed at the end). */
  readonly tmpDir: string;
  readonly signal?: AbortSignal;
}

/** How a proposer session ended: an overlay and a proposal, or the reason there is none. */
export type ProposerOutcome =
  | { readonly ok: true; readonly overlayDir: string; readonly proposalPath: string; readonly recordPath: string; readonly overlay: CandidateOverlay; readonly trimmed: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly recordPath: string; readonly trimmed: readonly string[] };

/** The skills a profile may change: review → the review skill; implementation → plan and work. */
export function listProfileSkills(profile: ProposerProfile, skills: SuiteSkills): readonly string[] {
  return profile === "review" ? [skills.review] : [skills.plan, skills.work];
}

/** Repo-relative paths the clone must not carry: tasks/, oracles/ and the suite's and oracle root's directories. */
async function hiddenPaths(repoRoot: string, suitePath: string, oraclesPath: string | null): Promise<string[]> {
  const listed = await listHiddenHarnessPaths(repoRoot, [
    { path: join(repoRoot, "tasks"), flag: "the default tasks directory" },
    { path: join(repoRoot, "oracles"), flag: "the default oracles directory" },
    { path: dirname(suitePath), flag: "--tasks's directory" },
    { path: suitePath, flag: "--tasks" },
    ...(oraclesPath === null ? [] : [{ path: oraclesPath, flag: "--oracles" }]),
  ]);
  if (!listed.ok) throw new ProposerSessionError("PROPOSER_BAD_INPUT", `${listed.error} (the repository is --repo-root ${repoRoot})`);
  return listed.value;
}

function describeSession(session: SessionRecord | null): Record<string, unknown> | null {
  if (session === null) return null;
  return {
    ok: session.ok,
    error_kind: session.errorKind,
    error_detail: session.errorDetail,
    session_id: session.sessionId,
    num_turns: session.numTurns,
    cost_usd: session.costUsd,
    duration_s: session.durationS,
    usage: session.usage,
    tool_use_counts: session.toolUseCounts,
    transcript: session.artifact,
    transcript_missing: session.transcriptMissing,
    diagnostics: session.diagnostics,
  };
}

/** Refuses what the overlay does beyond the profile's skills, or an overlay that changes nothing; null when fine. */
async function judgeOverlay(overlay: CandidateOverlay, allowed: readonly string[], incumbentRoot: string): Promise<string | null> {
  const outside = overlay.skills.filter((skill) => !allowed.includes(skill));
  if (outside.length > 0) return `the overlay changes ${outside.join(", ")}, but this profile may change only ${allowed.join(", ")}`;
  for (const file of overlay.files) {
    const incumbent = await readFile(join(incumbentRoot, file.path)).catch(() => null);
    if (incumbent === null || !incumbent.equals(Buffer.from(file.bytes))) return null;
  }
  return "the overlay is byte-identical to the incumbent skills: it would measure nothing";
}

/**
 * Reads the clone's `.wfbench-output/proposal.md` with no link followed in any component (the proposer controls the
 * whole output directory, so a linked `.wfbench-output` must not make this host process read a host file), refusing
 * anything but a regular file of at most MAX_PROPOSAL_BYTES. Returns the bytes, or the refusal as a string.
 */
export async function readProposal(workspace: string): Promise<Buffer | string> {
  const where = `${PROPOSER_OUTPUT_DIR}/proposal.md`;
  try {
    return (await readFileUnderRoot(workspace, where, MAX_PROPOSAL_BYTES)).bytes;
  } catch (error) {
    if (!isDurableFsError(error)) throw error;
    if (error.code === "DURABLE_FS_TOO_LARGE") return `${where} is over ${MAX_PROPOSAL_BYTES} bytes (at most ${MAX_PROPOSAL_BYTES}), or grew while read`;
    if (error.code === "DURABLE_FS_NOT_FOLLOWED") return `${where} is not a regular file reached without a link (${error.message})`;
    if (error.errno === "ENOENT") return `the session wrote no ${where}`;
    throw error;
  }
}

/**
 * One proposer session (reference §9.3): stages the evidence bundle, clones the repository's HEAD sanitized like an
 * arm's clone with the suite, `tasks/`, `oracles/` and harness data removed, runs the pinned Claude Code CLI in the
 * bwrap sandbox through the metering gateway (Read, Grep, Glob, Bash only; no MCP server; no slash commands;
 * `/evidence` read-only), then validates the overlay (§9.4) and the proposal and copies both into the new output
 * directory beside the redacted session record and transcript. The clone and the scratch directory are deleted.
 * Returns the outcome as a value; throws ProposerSessionError for bad input or a broken environment.
 */
export async function runProposerSession(input: RunProposerInput): Promise<ProposerOutcome> {
  const secrets = input.upstream.kind === "scripted" ? [] : [input.upstream.apiKey];
  if (input.upstream.kind === "scripted" && input.script === null) throw new ProposerSessionError("PROPOSER_BAD_INPUT", "the scripted model needs its script: pass --script FILE");
  const suite = await loadTaskSuite(input.suitePath, { includeExpensive: true, homeDir: input.homeDir });
  if (!suite.ok) throw new ProposerSessionError("PROPOSER_BAD_INPUT", `--tasks ${input.suitePath}: ${suite.error.message}`);
  const skills = suite.value.skills;
  const hidden = await hiddenPaths(input.repoRoot, input.suitePath, input.oraclesPath);
  const allowed = listProfileSkills(input.profile, skills);
  try {
    await mkdir(input.outDir, { mode: 0o700 });
    await chmod(input.outDir, 0o700);
  } catch (cause) {
    throw new ProposerSessionError("PROPOSER_BAD_INPUT", `--out ${input.outDir}: cannot create it (${(cause as Error).message}): pass a directory that does not exist yet`, { cause });
  }
  await preflight({});
  const cli = await resolveClaudeCli({ claudeBin: input.claudeBin });
  const workDir = await mkdtemp(join(input.tmpDir, "wfbench-propose-"));
  await chmod(workDir, 0o700);
  const templatesDir = join(workDir, "templates");
  await mkdir(templatesDir, { mode: 0o700 });
  const git = createSandboxedGitRunner({ writableRoots: [templatesDir], readOnlyRoots: [input.repoRoot] });
  const templates = createTemplateCache({ runner: git, parentDir: templatesDir });
  let model: Awaited<ReturnType<typeof startScriptedModel>> | null = null;
  let gateway: Awaited<ReturnType<typeof startGateway>> | null = null;
  const recordPath = join(input.outDir, PROPOSER_RECORD_FILE);
  const record: Record<string, unknown> = { schema: PROPOSER_RECORD_SCHEMA, profile: input.profile, model: input.model, effort: input.effort, upstream: input.upstream.kind, claude_code_version: cli.version, evaluated_skills: allowed, hidden_paths: hidden };
  let recorded = false;
  const writeRecord = async (): Promise<void> => {
    recorded = true;
    await writeFileExclusive(recordPath, Buffer.from(`${redactText(JSON.stringify(record, null, 2), secrets)}\n`, "utf8"), { mode: 0o600 });
  };
  let bundle: StagedBundle | null = null;
  try {
    bundle = await stageEvidenceBundle({ dest: join(workDir, "evidence"), ...input.evidence, skills: allowed, secrets });
    record["evidence_files"] = bundle.files;
    record["evidence_rows"] = bundle.selectedRows;
    record["evidence_trimmed"] = bundle.trimmed;
    const head = await git.run({ argv: ["rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], cwd: input.repoRoot, timeoutMs: 60_000, maxOutputBytes: 4096 });
    const sha = head.stdout.trim();
    if (head.exitCode !== 0 || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u.test(sha)) throw new ProposerSessionError("PROPOSER_BAD_INPUT", `--repo-root ${input.repoRoot}: HEAD is not a commit (${head.stderr.trim().slice(0, 200)}): pass a git repository with a commit`);
    record["repo_head_sha"] = sha;
    const template = await templates.acquire({ repo: input.repoRoot, sha, hiddenPaths: hidden, neutralize: [] });
    if (!template.ok) throw new ProposerSessionError("PROPOSER_ENVIRONMENT_FAILED", `sanitized clone of ${input.repoRoot} failed (${template.error.code}): ${template.error.message}`, { cause: template.error.cause });
    record["sanitized_sha"] = template.value.sanitizedSha;
    for (const skill of allowed) {
      const skillFile = await lstat(join(template.value.path, ".claude/skills", skill, "SKILL.md")).catch(() => null);
      if (skillFile === null || !skillFile.isFile()) throw new ProposerSessionError("PROPOSER_BAD_INPUT", `--repo-root ${input.repoRoot}: the ${input.profile} profile improves .claude/skills/${skill}/SKILL.md, which HEAD does not hold`);
    }
    const clone = await materializeCell(template.value, { parentDir: workDir, ...(input.signal === undefined ? {} : { signal: input.signal }) });
    await mkdir(join(clone.path, PROPOSER_OUTPUT_DIR), { mode: 0o700 });
    const runtime = join(workDir, "runtime");
    await mkdir(runtime, { mode: 0o700 });
    const shellPrefixPath = join(runtime, "shell-prefix");
    await writeFile(shellPrefixPath, renderShellPrefix(), { mode: 0o500 });
    await chmod(shellPrefixPath, 0o500);
    const shellPath = await stageExecOnlyShell(join(runtime, "bash"));
    const settingsStubPath = join(runtime, "claude-settings-stub.json");
    await writeFile(settingsStubPath, SETTINGS_STUB_CONTENT, { mode: 0o444, flag: "wx" });
    const claudePath = await stageExecOnlyBinary(cli.path, join(runtime, "claude"));
    let upstreamConfig: Parameters<typeof startGateway>[0]["upstream"];
    if (input.upstream.kind === "scripted") {
      model = await startScriptedModel({ script: input.script as Script, listen: { socketPath: join(workDir, "model.sock") }, requestLogPath: join(workDir, "scripted-model-requests.jsonl") });
      upstreamConfig = { kind: "scripted", baseUrl: model.baseUrl, socketPath: join(workDir, "model.sock"), apiKey: "wfbench-scripted-upstream-key" };
    } else {
      upstreamConfig = { kind: input.upstream.kind, baseUrl: input.upstream.baseUrl, apiKey: input.upstream.apiKey, authScheme: input.upstream.authScheme };
    }
    gateway = await startGateway({ listen: { socketPath: join(workDir, "gateway.sock") }, upstream: upstreamConfig, usageLogPath: join(input.outDir, "gateway-usage.jsonl") });
    if (input.upstream.kind !== "scripted") {
      // One 1-token request before the paid session: a refused key, an unknown model or a dead endpoint stops here.
      const canaryCell = "wfbench-upstream-canary";
      const probe = await probeUpstream({ gateway: { socketPath: join(workDir, "gateway.sock") }, token: gateway.mintCellToken(canaryCell), model: input.model });
      gateway.revokeCell(canaryCell);
      record["upstream_canary"] = { outcome: probe.outcome, http_status: probe.httpStatus };
      const failure = explainProbeFailure(probe, { kind: input.upstream.kind, baseUrl: input.upstream.baseUrl, model: input.model, detail: redactText(probe.detail, secrets), before: "a proposer session" });
      if (failure !== null) throw new ProposerSessionError("PROPOSER_UPSTREAM_REFUSED", failure);
    }
    const cellId = "wfbench-proposer";
    const token = gateway.mintCellToken(cellId);
    const home = join(workDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true, mode: 0o700 });
    const tmp = join(workDir, "tmp");
    await mkdir(tmp, { mode: 0o700 });
    const spec: SessionSpec = { phase: "work", prompt: buildProposerPrompt({ profile: input.profile, skills: allowed }), expectedSkill: null, disallowSkill: true, allowEdit: false, allowWrite: false, disableSlashCommands: true };
    const skillRoots: string[] = [];
    for (const skill of new Set(Object.values(skills))) {
      const info = await lstat(join(clone.path, ".claude/skills", skill)).catch(() => null);
      if (info?.isDirectory() === true) skillRoots.push(`.claude/skills/${skill}`);
    }
    let session: SessionRecord;
    try {
      session = await runSession(spec, {
        workspace: clone.path,
        homeHostPath: home,
        tmpHostPath: tmp,
        // The incumbent skills stay as they are: the proposer writes its replacements under .wfbench-output only.
        readOnlySkillRoots: skillRoots,
        claudePath,
        shellPrefixPath,
        shellPath,
        settingsStubPath,
        gatewaySocketPath: join(workDir, "gateway.sock"),
        token,
        model: input.model,
        effort: input.effort,
        timeoutMs: input.timeoutMs,
        outDir: input.outDir,
        transcriptPrefix: "proposer",
        contaminationSkill: null,
        secrets,
        dependencyMounts: [{ source: bundle.dir, target: SANDBOX_EVIDENCE, mode: "ro" }],
        ...(input.signal === undefined ? {} : { signal: input.signal }),
      });
    } finally {
      gateway.revokeCell(cellId);
    }
    await gateway.flush();
    const usage = gateway.summarizeCell(cellId);
    record["session"] = describeSession(session);
    record["wire"] = { requests: usage.requests, failed_requests: usage.failedRequests, input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cost_usd: usage.costUsd };
    const fail = async (reason: string): Promise<ProposerOutcome> => {
      record["ok"] = false;
      record["failure"] = reason;
      await writeRecord();
      return { ok: false, reason, recordPath, trimmed: bundle?.trimmed ?? [] };
    };
    if (!session.ok) return await fail(`the proposer session failed (${session.errorKind ?? "unknown"}): see ${PROPOSER_RECORD_FILE} and the transcript`);
    const internal = join(clone.path, PROPOSER_OUTPUT_DIR, "overlay");
    const internalStat = await lstat(internal).catch(() => null);
    if (internalStat === null) return await fail(`the proposer wrote no overlay: expected complete replacement files under /workspace/${PROPOSER_OUTPUT_DIR}/overlay/.claude/skills/<skill>/ (skills ${allowed.join(", ")})`);
    const read = await readCandidateOverlay(internal, skills);
    if (!read.ok) return await fail(`the proposer wrote no valid overlay under /workspace/${PROPOSER_OUTPUT_DIR}/overlay: ${read.error.file ?? "(overlay root)"}: rule ${read.error.rule}: ${read.error.message}`);
    const refused = await judgeOverlay(read.value, allowed, template.value.path);
    if (refused !== null) return await fail(refused);
    const proposal = await readProposal(clone.path);
    if (typeof proposal === "string") return await fail(proposal);
    const overlayDir = join(input.outDir, "overlay");
    await mkdir(overlayDir, { mode: 0o700 });
    for (const file of read.value.files) {
      const dest = join(overlayDir, file.path);
      await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
      await writeFileExclusive(dest, Buffer.from(file.bytes), { mode: 0o600 });
    }
    const proposalPath = join(input.outDir, "proposal.md");
    await writeFileExclusive(proposalPath, proposal, { mode: 0o600 });
    record["ok"] = true;
    record["overlay_files"] = read.value.files.map((file) => ({ path: file.path, sha256: sha256Hex(Buffer.from(file.bytes)), bytes: file.bytes.length }));
    record["proposal_sha256"] = sha256Hex(proposal);
    await writeRecord();
    const copied = await readCandidateOverlay(overlayDir, skills);
    if (!copied.ok) throw new ProposerSessionError("PROPOSER_ENVIRONMENT_FAILED", `the copied overlay ${overlayDir} does not validate: ${copied.error.message}`);
    return { ok: true, overlayDir, proposalPath, recordPath, overlay: copied.value, trimmed: bundle.trimmed };
  } catch (error) {
    // Whatever stopped the session is recorded beside what was known by then; the error itself still propagates.
    if (!recorded) {
      record["ok"] = false;
      record["error"] = { code: (error as Error & { code?: unknown }).code ?? null, message: (error as Error).message };
      await writeRecord().catch(() => undefined);
    }
    throw error;
  } finally {
    for (const step of [() => gateway?.close(), () => model?.close(), () => templates.dispose(), () => removeTree(workDir)]) {
      try {
        await step();
      } catch {
        // Best effort: a leftover scratch directory is private (0700) and the outcome is already decided.
      }
    }
  }
}

/** The in-sandbox path of the clone's output directory, for messages. */
export const SANDBOX_PROPOSER_OUTPUT = `${SANDBOX_WORKSPACE}/${PROPOSER_OUTPUT_DIR}`;
