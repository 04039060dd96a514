export { classifyOutcome } from "./classify-outcome.js";
export type { PermissionDenial, SessionErrorDetail, SessionFailureReason, SessionOutcome } from "./classify-outcome.js";
export { countToolUses, sanitizeToolName } from "./count-tool-uses.js";
export type { ToolUseCounts } from "./count-tool-uses.js";
export { decideSessionEvidence } from "./decide-session-evidence.js";
export type { SessionEvidence, SessionEvidenceInput } from "./decide-session-evidence.js";
export {
  EvidenceArtifactError,
  EvidenceError,
  EvidenceOptionsError,
  EvidenceSourceError,
  isEvidenceError,
} from "./errors.js";
export type { EvidenceErrorCode, EvidenceRejection, EvidenceRejectionCode, EvidenceResult } from "./errors.js";
export { createProgressPreviewer, isPreviewableTool, neutralizeLogCommands } from "./format-progress-preview.js";
export type { ProgressPreviewOptions, ProgressPreviewer } from "./format-progress-preview.js";
export { normalizeSkillName } from "./normalize-skill-name.js";
export { createEvidenceStreamParser, parseEvidenceBytes, parseEvidenceStream, refuseMissingCapture } from "./parse-evidence-stream.js";
export type { EvidenceStreamParser, ParseEvidenceOptions, ParseEvidenceOutcome, ParsedEvidenceStream } from "./parse-evidence-stream.js";
export { proveSkillUse } from "./prove-skill-use.js";
export type { SkillProof } from "./prove-skill-use.js";
// The text rules live in @wfbench/redact; re-exported so callers of the evidence boundary redact with the same rules.
export { redactText } from "@wfbench/redact";
export { createJsonRedactor, isSensitiveKey, redactJson, RedactionCollision } from "./redact-text.js";
export { TRANSCRIPT_SOURCE, redactTranscript } from "./redact-transcript.js";
export { SALVAGE_TRUNCATED_TYPE, SALVAGE_UNPARSED_TYPE, salvageTranscript } from "./salvage-transcript.js";
export type { SalvageTranscriptOptions, SalvagedTranscript } from "./salvage-transcript.js";
export type { RedactTranscriptOptions, TranscriptArtifact } from "./redact-transcript.js";
export { DEFAULT_MAX_BYTES, ProcessOutcomeSchema } from "./schema.js";
export type { JsonObject, JsonValue, ProcessOutcome, StreamEvent } from "./schema.js";
export { countApiRetries, summarizeUsage } from "./summarize-usage.js";
export type { ModelUsageTotals, SubagentTraffic, SummarizeUsageOptions, TokenUsage, UsageSummary } from "./summarize-usage.js";
export { writeTranscriptArtifact } from "./write-transcript-artifact.js";
export type { TranscriptArtifactRecord } from "./write-transcript-artifact.js";
