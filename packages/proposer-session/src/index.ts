export { ProposerSessionError, isProposerSessionError } from "./errors.js";
export type { ProposerSessionErrorCode } from "./errors.js";
export { MAX_TRANSCRIPT_STRING_CHARS, compactText, compactTranscript } from "./compact-transcript.js";
export { BUNDLE_LIMITS, compactRow, selectEvidenceRows, selectSkillLearnings, stageEvidenceBundle } from "./stage-evidence-bundle.js";
export type { StageEvidenceInput, StagedBundle } from "./stage-evidence-bundle.js";
export { PROPOSER_OUTPUT_DIR, SANDBOX_EVIDENCE, buildProposerPrompt } from "./build-proposer-prompt.js";
export type { ProposerProfile } from "./build-proposer-prompt.js";
export { MAX_PROPOSAL_BYTES, PROPOSER_RECORD_FILE, PROPOSER_RECORD_SCHEMA, SANDBOX_PROPOSER_OUTPUT, listProfileSkills, runProposerSession } from "./run-proposer-session.js";
export type { ProposerOutcome, RunProposerInput } from "./run-proposer-session.js";
