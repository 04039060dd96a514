export { isEvidenceError } from "./errors.js";
export { recordSessionEvidence } from "./record-session-evidence.js";
export type { RecordedSession } from "./record-session-evidence.js";
export type { StreamEnd } from "./describe-stream-end.js";
export { redactText } from "./redact-text.js";
export type { TranscriptArtifactRecord } from "./write-transcript-artifact.js";
