export { isEvidenceError } from "./errors.js";
export { recordSessionEvidence } from "./record-session-evidence.js";
export type { RecordedSession } from "./record-session-evidence.js";
export type { StreamEnd } from "./describe-stream-end.js";
export type { OwnOutputBound } from "./decide-session-evidence.js";
// The text rules live in @wfbench/redact; re-exported so callers of the evidence boundary redact with the same rules.
export { redactText } from "@wfbench/redact";
export type { TranscriptArtifactRecord } from "./write-transcript-artifact.js";
