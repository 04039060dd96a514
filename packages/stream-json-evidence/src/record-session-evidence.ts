import { relative } from "node:path";
import { classifyOutcome, type SessionErrorDetail } from "./classify-outcome.js";
import { countToolUses } from "./count-tool-uses.js";
import { decideSessionEvidence, type OwnOutputBound, type SessionEvidence } from "./decide-session-evidence.js";
import { describeStreamEnd, type StreamEnd } from "./describe-stream-end.js";
import { isEvidenceError } from "./errors.js";
import { listAssistantMessageIds } from "./list-assistant-message-ids.js";
import { parseEvidenceBytes } from "./parse-evidence-stream.js";
import { proveSkillUse } from "./prove-skill-use.js";
import { redactTranscript, type TranscriptArtifact } from "./redact-transcript.js";
import { salvageTranscript } from "./salvage-transcript.js";
import { summarizeUsage, type ModelUsageTotals, type TokenUsage } from "./summarize-usage.js";
import { writeTranscriptArtifact, type TranscriptArtifactRecord } from "./write-transcript-artifact.js";

/** Which session the bytes belong to: its phase (kept apart in transcript names) and the skill it must prove, if any. */
export interface SessionToRecord<P extends string = string> {
  readonly phase: P;
  /** The skill the session must be proven to invoke; null for a baseline (then only contamination is checked). */
  readonly expectedSkill: string | null;
}

/** What one session contributes to its row (reference §4.2, `sum_sessions` inputs). */
export interface RecordedSession<P extends string = string> {
  readonly phase: P;
  readonly ok: boolean;
  readonly errorKind: SessionEvidence["errorKind"];
  readonly errorDetail: SessionErrorDetail | string | null;
  readonly skillInvoked: boolean | null;
  readonly transcriptMissing: boolean;
  readonly diagnostics: readonly string[];
  readonly sessionId: string | null;
  readonly usage: TokenUsage | null;
  readonly costUsd: number | null;
  readonly durationS: number | null;
  readonly numTurns: number | null;
  /** null when the stream did not parse: not measured, never an empty tally. */
  readonly toolUseCounts: Readonly<Record<string, number>> | null;
  readonly gitnexusToolUses: number | null;
  readonly artifact: TranscriptArtifactRecord | null;
  readonly cancelled: boolean;
  /** Where the parent-captured stream stopped (a session without a result event: in a tool call or a model turn). */
  readonly streamEnd: StreamEnd;
  /**
   * The assistant message ids the stream shows (evidence window, or a killed session's complete events; empty when
   * nothing parsed): what the cell matches the gateway's wire rows against.
   */
  readonly assistantMessageIds: readonly string[];
  /**
   * Input + output + cache tokens over every `modelUsage` entry of the result (main loop and subagents); null when the
   * stream did not parse or an entry lacks a count. With the message ids, what the cell's wire rows are matched against.
   */
  readonly modelUsageTokens: number | null;
  /** The parser bound this session's own output exceeded, when that alone left it evidence-unverified; else null. */
  readonly ownOutputBound: OwnOutputBound | null;
}

function sumModelUsageTokens(models: readonly ModelUsageTotals[]): number | null {
  let sum = 0;
  for (const m of models) {
    const counts = [m.inputTokens, m.outputTokens, m.cacheReadInputTokens, m.cacheCreationInputTokens];
    if (counts.some((count) => count === null)) return null;
    for (const count of counts) sum += count ?? 0;
  }
  return sum;
}

/** What the sandbox handed back for one session: the parent-captured stdout and how the process ended. */
export interface CapturedSession {
  readonly stdout: Buffer;
  readonly stdoutOverflow: boolean;
  readonly state: string;
  readonly exitCode: number | null;
  readonly stderrTail: string;
  readonly setupError: string | null;
  readonly durationMs: number;
}

/** Where and how a session's transcript is written. */
export interface EvidenceContext {
  readonly outDir: string;
  readonly transcriptPrefix: string;
  /** The work skill, proven absent on a baseline (a contamination check, never an error by itself). */
  readonly contaminationSkill: string | null;
  readonly secrets: readonly string[];
}

type Transcript = { readonly artifact: TranscriptArtifact; readonly sessionId: string | null; readonly note: string | null };

/**
 * Turns one session's parent-captured stdout into its row contribution. Trusts only those bytes and the process
 * outcome. A stream that parsed (or a killed session's complete events) is kept as the redacted transcript; a stream
 * the parser refused is still kept as a bounded, redacted salvage (never evidence: its skill proof, usage and tool
 * counts stay null) so a failed cell keeps a record; the session's error kind is never changed by the salvage.
 * @throws {EvidenceError} only for evidence-library bugs and bad options; a failed write becomes a diagnostic.
 */
export async function recordSessionEvidence<P extends string>(spec: SessionToRecord<P>, captured: CapturedSession, context: EvidenceContext): Promise<RecordedSession<P>> {
  const parse = parseEvidenceBytes(captured.stdout, { captureTruncated: captured.stdoutOverflow });
  const detail = captured.setupError ?? (captured.state === "exited" ? null : captured.stderrTail.slice(-2000));
  const outcome = classifyOutcome(parse, { exitCode: captured.exitCode, state: captured.state, detail });
  const proof = parse.ok && spec.expectedSkill !== null ? proveSkillUse(parse.value, spec.expectedSkill) : null;
  const contamination = parse.ok && spec.expectedSkill === null && context.contaminationSkill !== null ? proveSkillUse(parse.value, context.contaminationSkill) : null;
  const usage = parse.ok ? summarizeUsage(parse.value, { wallTimeMs: captured.durationMs }) : null;
  // Counted from the evidence window only; a refused stream was not measured, so its counts are null, never 0.
  const counts = parse.ok ? countToolUses(parse.value.events) : null;

  const extra: string[] = [];
  let transcript: Transcript | null = null;
  const events = parse.ok ? parse.value : parse.partialEvents;
  if (events !== null) {
    const redacted = redactTranscript(events, { secrets: [...context.secrets] });
    if (redacted.ok) transcript = { artifact: redacted.value, sessionId: outcome.sessionId, note: null };
    else extra.push(`transcript not persisted: ${redacted.error.code}`);
  } else if (!parse.ok) {
    const salvage = salvageTranscript(captured.stdout, { secrets: [...context.secrets] });
    if (!salvage.ok) extra.push("transcript not persisted: the capture holds no event");
    else {
      const s = salvage.value;
      const note = `transcript salvaged from a stream that did not parse (${parse.error.code}): ${s.keptLines} line(s) kept, ${s.unparsedLines} unparsed${s.truncated ? `, ${s.droppedLines} dropped at the byte bound` : ""}`;
      transcript = { artifact: s, sessionId: s.sessionId, note };
    }
  }
  let artifact: TranscriptArtifactRecord | null = null;
  if (transcript !== null) {
    try {
      // A stream without a usable session id still gets a file; the phase keeps plan and work apart.
      const written = await writeTranscriptArtifact(`${context.outDir}/transcripts`, { prefix: context.transcriptPrefix, sessionId: transcript.sessionId ?? `nosession-${spec.phase}` }, transcript.artifact);
      artifact = { ...written, path: relative(context.outDir, written.path) };
      if (transcript.note !== null) extra.push(transcript.note);
    } catch (error) {
      if (!isEvidenceError(error)) throw error;
      extra.push(`transcript not persisted: ${error.code}`);
    }
  }
  if (contamination?.skillInvoked === true) extra.push(`baseline session invoked the evaluated skill ${contamination.expectedSkill}`);
  const verdict = decideSessionEvidence({ outcome, proof, transcriptPersisted: artifact !== null, extraDiagnostics: extra });
  return {
    phase: spec.phase,
    ok: verdict.ok,
    errorKind: verdict.errorKind,
    errorDetail: verdict.errorKind === "session-error" || verdict.errorKind === "cancelled" ? outcome.detail : verdict.errorKind === null ? null : verdict.diagnostics.join("; ") || verdict.errorKind,
    skillInvoked: spec.expectedSkill === null ? (contamination?.skillInvoked ?? null) : verdict.skillInvoked,
    transcriptMissing: verdict.transcriptMissing,
    diagnostics: verdict.diagnostics,
    ownOutputBound: verdict.ownOutputBound,
    sessionId: outcome.sessionId,
    usage: usage?.usage ?? null,
    costUsd: usage?.costUsd ?? null,
    durationS: usage?.durationSeconds ?? captured.durationMs / 1000,
    numTurns: usage?.numTurns ?? null,
    toolUseCounts: counts?.toolUseCounts ?? null,
    gitnexusToolUses: counts?.gitnexusToolUses ?? null,
    artifact,
    cancelled: captured.state === "cancelled",
    streamEnd: describeStreamEnd(parse),
    assistantMessageIds: listAssistantMessageIds(parse.ok ? parse.value.events : (parse.partialEvents ?? [])),
    modelUsageTokens: usage === null ? null : sumModelUsageTokens(usage.models),
  };
}
