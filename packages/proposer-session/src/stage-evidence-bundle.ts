import { constants } from "node:fs";
import { lstat, mkdir, open, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { sha256Hex } from "@wfbench/digest";
import { writeFileExclusive } from "@wfbench/durable-fs";
import { redactText } from "@wfbench/redact";
import { REVIEW_SCORE_KEYS, TRANSCRIPT_SOURCE, parseResultRow, type ParsedRow } from "@wfbench/result-row";
import { z } from "zod";
import { compactText, compactTranscript } from "./compact-transcript.js";
import { ProposerSessionError } from "./errors.js";

/** Bundle limits (reference §9.2 and Appendix A). */
export const BUNDLE_LIMITS = {
  /** `MAX_EVIDENCE_FILE_BYTES`: every bundle file, and the starting per-artifact cap. */
  maxFileBytes: 256 * 1024,
  /** `MAX_BUNDLE_BYTES`: the whole bundle. */
  maxBundleBytes: 2 * 1024 * 1024,
  /** The per-artifact cap is halved down to this before anything is dropped. */
  minArtifactBytes: 32 * 1024,
  maxRows: 12,
  maxTranscriptsPerRow: 2,
  maxTranscripts: 24,
  /** A row's transcript larger than this is refused (metadata check). */
  maxTranscriptBytes: 8 * 1024 * 1024,
  maxLearnings: 40,
  verifyTailChars: 600,
} as const;

/** Rows of these kinds say nothing about the skill text and never reach the proposer. */
const DROPPED_ERROR_KINDS = new Set(["infra-error", "session-error", "evidence-unverified", "cleanup-failure"]);
const TRANSCRIPT_PATH = /^transcripts\/[A-Za-z0-9._-]{1,255}$/u;
const ARTIFACT_NAME = /^[A-Za-z0-9._-]{1,255}$/u;

/** Where the bundle's evidence comes from; every source is optional. */
export interface StageEvidenceInput {
  /** The bundle directory; must not exist (created 0700). */
  readonly dest: string;
  /** A sweep output directory (results.jsonl, transcripts/, patches, review artifacts, promotion.json), or null. */
  readonly resultsDir: string | null;
  /** The learning queue (JSONL, reference §9.6), or null. */
  readonly learningsPath: string | null;
  /** The previous generation's proposal.md, or null. */
  readonly priorProposalPath: string | null;
  /** The suite's evaluated skills: only learnings about these are shown. */
  readonly skills: readonly string[];
  /** Known secrets, redacted from every file besides the generic rules. */
  readonly secrets: readonly string[];
}

/** What was staged: file names with sizes, and the trimming steps taken (for the app to print). */
export interface StagedBundle {
  readonly dir: string;
  readonly files: readonly { readonly name: string; readonly bytes: number }[];
  readonly selectedRows: number;
  readonly trimmed: readonly string[];
}

interface SourceRow {
  readonly row: ParsedRow;
  readonly transcripts: readonly string[];
  readonly patch: string | null;
  readonly review: string | null;
}

function invalid(message: string): ProposerSessionError {
  return new ProposerSessionError("PROPOSER_EVIDENCE_INVALID", message);
}

/**
 * The rows the proposer sees (reference §9.2): rows whose kind says nothing about the skill are dropped, unresolved
 * rows come first in task, arm, run order, then resolved rows by cost, most expensive first; at most 12.
 */
export function selectEvidenceRows<T extends Pick<ParsedRow, "task" | "arm" | "run" | "resolved" | "error_kind" | "cost_usd">>(rows: readonly T[]): T[] {
  const kept = rows.filter((row) => row.error_kind == null || !DROPPED_ERROR_KINDS.has(row.error_kind));
  const byCell = (a: T, b: T): number => (a.task < b.task ? -1 : a.task > b.task ? 1 : a.arm < b.arm ? -1 : a.arm > b.arm ? 1 : (a.run ?? 0) - (b.run ?? 0));
  const unresolved = kept.filter((row) => !row.resolved).sort(byCell);
  const resolved = kept.filter((row) => row.resolved).sort((a, b) => (b.cost_usd ?? -1) - (a.cost_usd ?? -1) || byCell(a, b));
  return [...unresolved, ...resolved].slice(0, BUNDLE_LIMITS.maxRows);
}

/** The compact row of `selected-rows.json` (reference §9.2 field list). */
export function compactRow(row: ParsedRow, names: { patch: string | null; review: string | null; transcripts: readonly string[] }): Record<string, unknown> {
  const raw = row as ParsedRow & Record<string, unknown>;
  const score = raw["review_score"];
  const reviewScore = score !== null && typeof score === "object" ? Object.fromEntries(REVIEW_SCORE_KEYS.filter((key) => key in score).map((key) => [key, (score as Record<string, unknown>)[key]])) : null;
  const churn = row.diff_files == null ? null : `${row.diff_files}f/+${String(row.diff_insertions)}/\u2212${String(row.diff_deletions)}`;
  return {
    task: row.task,
    class: row.class,
    arm: row.arm,
    run: row.run ?? null,
    resolved: row.resolved,
    error_kind: row.error_kind ?? null,
    cost_usd: row.cost_usd ?? null,
    num_turns: row.num_turns ?? null,
    output_tokens: row.output_tokens ?? null,
    churn,
    session_ids: row.session_ids ?? null,
    patch_file: names.patch,
    review_artifact: names.review,
    review_score: reviewScore,
    verify_tail: (row.verify_output ?? "").slice(-BUNDLE_LIMITS.verifyTailChars),
    transcript_files: names.transcripts,
  };
}

/** Reads a regular file of the results dir without following a link; null when absent. */
async function readArtifact(dir: string, name: string, what: string): Promise<Buffer | null> {
  if (!ARTIFACT_NAME.test(name)) throw invalid(`${what} ${JSON.stringify(name)} is not a plain file name in ${dir}`);
  let handle;
  try {
    handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw invalid(`${what} ${join(dir, name)} is not a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The transcript checks of reference §9.2, fail closed; returns the verified bytes. */
async function readVerifiedTranscript(dir: string, record: NonNullable<ParsedRow["transcript_artifacts"]>[number], where: string): Promise<Buffer> {
  if (record.source !== TRANSCRIPT_SOURCE || !TRANSCRIPT_PATH.test(record.path) || record.bytes > BUNDLE_LIMITS.maxTranscriptBytes) {
    throw invalid(`${where}: transcript metadata ${JSON.stringify(record.path)} is refused (source ${TRANSCRIPT_SOURCE}, path transcripts/<name>, at most ${BUNDLE_LIMITS.maxTranscriptBytes} bytes): use the sweep's own output directory`);
  }
  const parent = await lstat(join(dir, "transcripts")).catch(() => null);
  if (parent === null || !parent.isDirectory() || (parent.mode & 0o077) !== 0) throw invalid(`${where}: ${join(dir, "transcripts")} must be an owner-only directory (no group/other bits)`);
  const path = join(dir, record.path);
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isFile() || (info.mode & 0o077) !== 0) throw invalid(`${where}: ${path} must be an owner-only regular file`);
  const bytes = await readArtifact(join(dir, "transcripts"), basename(record.path), "transcript");
  if (bytes === null || bytes.length !== record.bytes || sha256Hex(bytes) !== record.sha256) throw invalid(`${where}: ${path} does not match the row's size and sha256: the results directory was changed after the sweep`);
  return bytes;
}

async function readSourceRows(resultsDir: string): Promise<SourceRow[]> {
  const text = await readFile(join(resultsDir, "results.jsonl"), "utf8").catch((cause: unknown) => {
    throw new ProposerSessionError("PROPOSER_BAD_INPUT", `--evidence-results ${resultsDir}: cannot read results.jsonl (${(cause as Error).message}): pass a sweep output directory`);
  });
  const lines = text.split("\n");
  // An unterminated last line is a crash mid-append: not a row.
  if (lines.at(-1) !== "") lines.pop();
  const rows: ParsedRow[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw invalid(`${resultsDir}/results.jsonl line ${index + 1} is not JSON`);
    }
    const parsed = parseResultRow(value);
    if (!parsed.ok) throw invalid(`${resultsDir}/results.jsonl line ${index + 1}: field ${parsed.error.field}: ${parsed.error.message}`);
    rows.push(parsed.value);
  }
  const selected = selectEvidenceRows(rows);
  const seen = new Set<string>();
  const out: SourceRow[] = [];
  for (const row of selected) {
    const where = `results.jsonl row [${row.task}][${row.arm}][run ${String(row.run)}]`;
    const artifacts = row.transcript_artifacts ?? [];
    if (artifacts.length === 0) throw invalid(`${where} carries no transcript_artifacts: the proposer only sees rows with their transcripts`);
    if (artifacts.length > BUNDLE_LIMITS.maxTranscriptsPerRow) throw invalid(`${where} carries ${artifacts.length} transcripts (at most ${BUNDLE_LIMITS.maxTranscriptsPerRow})`);
    const transcripts: string[] = [];
    for (const record of artifacts) {
      if (seen.has(record.path)) throw invalid(`${where}: transcript ${record.path} is cited twice`);
      seen.add(record.path);
      if (seen.size > BUNDLE_LIMITS.maxTranscripts) throw invalid(`the selected rows cite more than ${BUNDLE_LIMITS.maxTranscripts} transcripts`);
      transcripts.push((await readVerifiedTranscript(resultsDir, record, where)).toString("utf8"));
    }
    const raw = row as ParsedRow & Record<string, unknown>;
    const patch = row.patch_artifact == null ? null : await readArtifact(resultsDir, row.patch_artifact, "patch_artifact");
    const reviewName = typeof raw["review_artifact"] === "string" ? raw["review_artifact"] : null;
    const review = reviewName === null ? null : await readArtifact(resultsDir, reviewName, "review_artifact");
    out.push({ row, transcripts, patch: patch?.toString("utf8") ?? null, review: review?.toString("utf8") ?? null });
  }
  return out;
}

/**
 * The gate summary of an earlier promotion.json (reference §9.1 step 2): one line per decision,
 * `<candidate_arm>: <decision> — <first 3 reasons joined by '; '>`. Nothing else of the file reaches the proposer: it
 * also names the hidden oracle files, their digests and the target bases, which a skill must never be tuned to.
 */
export function summarizeGate(promotion: unknown): string[] {
  const decisions = (promotion as { decisions?: unknown } | null)?.decisions;
  if (!Array.isArray(decisions)) return [];
  return decisions.map((decision: unknown) => {
    const d = (decision !== null && typeof decision === "object" ? decision : {}) as { candidate_arm?: unknown; decision?: unknown; reasons?: unknown };
    const reasons = Array.isArray(d.reasons) ? d.reasons.filter((reason): reason is string => typeof reason === "string").slice(0, 3) : [];
    return `${String(d.candidate_arm)}: ${String(d.decision)} \u2014 ${reasons.join("; ")}`;
  });
}

const LEARNING = z.looseObject({ skill: z.string() });

/** The last 40 learnings about the given skills (reference §9.6); malformed lines are skipped, they are hints only. */
export function selectSkillLearnings(jsonlText: string, skills: readonly string[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const line of jsonlText.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = LEARNING.safeParse(JSON.parse(line));
      if (parsed.success && skills.includes(parsed.data.skill)) rows.push(parsed.data);
    } catch {
      // Not JSON: skipped.
    }
  }
  return rows.slice(-BUNDLE_LIMITS.maxLearnings);
}

/** Renders the bundle's files for one per-artifact cap and one row count; the caller checks the total. */
function render(rows: readonly SourceRow[], fixed: ReadonlyMap<string, string>, artifactCap: number): Map<string, string> {
  const files = new Map(fixed);
  const compact: Record<string, unknown>[] = [];
  for (const [i, source] of rows.entries()) {
    const transcripts = source.transcripts.map((text, j) => {
      const name = `transcript-${i}-${j}.jsonl`;
      files.set(name, compactTranscript(text, artifactCap).text);
      return name;
    });
    const patch = source.patch === null ? null : `patch-${i}.diff`;
    if (patch !== null) files.set(patch, compactText(source.patch as string, artifactCap));
    const review = source.review === null ? null : `review-${i}.json`;
    if (review !== null) files.set(review, compactText(source.review as string, artifactCap));
    compact.push(compactRow(source.row, { patch, review, transcripts }));
  }
  files.set("selected-rows.json", compactText(`${JSON.stringify(compact, null, 2)}\n`, BUNDLE_LIMITS.maxFileBytes));
  return files;
}

function totalBytes(files: ReadonlyMap<string, string>): number {
  let total = 0;
  for (const text of files.values()) total += Buffer.byteLength(text);
  return total;
}

/**
 * Stages the proposer's read-only evidence bundle (reference §9.2) into a new owner-only directory: the selected rows
 * with their verified, compacted transcripts, patches and review artifacts, `learnings.json`, `gate-summary.json` and
 * `prior-proposal.md`; every file redacted, 0600, at most 256 KiB, the bundle at most 2 MiB (the per-artifact cap is
 * halved down to 32 KiB, then the prior proposal and then rows from the end are dropped).
 * @throws {ProposerSessionError} PROPOSER_EVIDENCE_INVALID when a transcript check fails or nothing fits;
 * PROPOSER_BAD_INPUT for an unreadable source.
 */
export async function stageEvidenceBundle(input: StageEvidenceInput): Promise<StagedBundle> {
  const rows = input.resultsDir === null ? [] : await readSourceRows(input.resultsDir);
  const readOptional = async (path: string | null, flag: string): Promise<string | null> => {
    if (path === null) return null;
    const info = await stat(path).catch(() => null);
    if (info === null || !info.isFile()) throw new ProposerSessionError("PROPOSER_BAD_INPUT", `${flag} ${path} is not a readable regular file`);
    return readFile(path, "utf8");
  };
  const learnings = selectSkillLearnings((await readOptional(input.learningsPath, "--learnings")) ?? "", input.skills);
  const prior = await readOptional(input.priorProposalPath, "--prior-proposal");
  const promotionText = input.resultsDir === null ? null : await readArtifact(input.resultsDir, "promotion.json", "promotion.json");
  let promotion: unknown = null;
  if (promotionText !== null) {
    try {
      promotion = JSON.parse(promotionText.toString("utf8"));
    } catch {
      throw invalid(`${input.resultsDir}/promotion.json is not JSON`);
    }
  }
  const fixed = new Map<string, string>([
    ["learnings.json", compactText(`${JSON.stringify(learnings, null, 2)}\n`, BUNDLE_LIMITS.maxFileBytes)],
    ["gate-summary.json", compactText(`${JSON.stringify(summarizeGate(promotion), null, 2)}\n`, BUNDLE_LIMITS.maxFileBytes)],
  ]);
  if (prior !== null) fixed.set("prior-proposal.md", compactText(prior, BUNDLE_LIMITS.maxFileBytes));
  const trimmed: string[] = [];
  let cap: number = BUNDLE_LIMITS.maxFileBytes;
  let kept = rows;
  let files = render(kept, fixed, cap);
  while (totalBytes(files) > BUNDLE_LIMITS.maxBundleBytes) {
    if (cap / 2 >= BUNDLE_LIMITS.minArtifactBytes) {
      cap /= 2;
      trimmed.push(`trimmed proposer evidence: per-artifact cap halved to ${cap} bytes`);
    } else if (fixed.has("prior-proposal.md")) {
      fixed.delete("prior-proposal.md");
      trimmed.push("trimmed proposer evidence: dropped the prior proposal");
    } else if (kept.length > 0) {
      kept = kept.slice(0, -1);
      trimmed.push(`trimmed proposer evidence: dropped a row, ${kept.length} left`);
    } else {
      throw invalid(`the proposer evidence does not fit in ${BUNDLE_LIMITS.maxBundleBytes} bytes even without rows`);
    }
    files = render(kept, fixed, cap);
  }
  try {
    await mkdir(input.dest, { mode: 0o700 });
  } catch (cause) {
    throw new ProposerSessionError("PROPOSER_BAD_INPUT", `cannot create the evidence directory ${input.dest} (${(cause as Error).message}): it must not exist yet`, { cause });
  }
  const written: { name: string; bytes: number }[] = [];
  for (const [name, text] of files) {
    const bytes = Buffer.from(redactText(text, input.secrets), "utf8");
    // Redaction can only shorten a line much; a file pushed over the cap by it is cut once more.
    const final = bytes.length <= BUNDLE_LIMITS.maxFileBytes ? bytes : Buffer.from(compactText(bytes.toString("utf8"), BUNDLE_LIMITS.maxFileBytes), "utf8");
    await writeFileExclusive(join(input.dest, name), final, { mode: 0o600 });
    written.push({ name, bytes: final.length });
  }
  return { dir: input.dest, files: written, selectedRows: kept.length, trimmed };
}
